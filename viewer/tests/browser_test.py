#!/usr/bin/env python3
"""Opens pages written by `diffcol view` in headless Chromium and checks them.

Checks, for each page (through the DevTools protocol over a pipe, python3 standard library only):
  * no console errors, no uncaught exceptions, no browser log errors, no request that leaves the
    machine (only file:, blob: and data: URLs are allowed: the page must work offline);
  * the page's loader reports status "ok" and the expected number of frames;
  * the WebGL canvas is not blank: enough non-background pixels, many distinct colours, pixels of
    both shapes' colours and of both witness-point markers (read from the canvas, not from the HTML
    panel, whose legend shows the same colours);
  * on an animated page, moving to the last frame changes the picture.
The same for a DCOL page (`--method dcol`, animated) and a DiffPills page (`--method qp`).
And for the Contax manifold page of `diffcol view --manifold-demo` (a mesh page, format
"diffcol-mesh-view/1"): the same load / offline / console checks, both bodies visible, manifold
markers drawn (red, high-activity arrows and points read from the canvas) on the contact frame,
none shown on the separated first frame, and the slider changes the picture.
Screenshots are saved in --out-dir.

Then, in the same browser, a test of the checks themselves: they must REJECT deliberately broken
copies of the good pages above (a script that throws, a page that draws nothing, one that hides
body 2 or the contact, a missing three.js module, a page that fetches from the network; a
manifold page that never shows its markers). The unmodified pages are the ones checked above,
which must pass. Exit 0 when every verdict is as expected. --only pages / --only negative runs one
half (for debugging).

Exit status: 0 pass, 1 fail, 77 skipped (no chromium found; CTest SKIP_RETURN_CODE). Without
chromium the test fails instead of skipping when CI=true or DIFFCOL_REQUIRE_CHROMIUM=1.
"""
import argparse
import base64
import collections
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

SKIP = 77
WIDTH, HEIGHT = 1000, 700

# Colours of viewer/src/viewer.js.
SHAPE1 = (0x4E, 0x79, 0xA7)
SHAPE2 = (0xF2, 0x8E, 0x2B)
P1 = (0xD8, 0x1B, 0x60)
P2 = (0x1E, 0x8A, 0x3C)
ACTIVE = (0xD7, 0x19, 0x1C)  # activity 1 on the manifold pages (ACTIVITY_HIGH)


class CheckFailed(Exception):
    pass


# ----------------------------------------------------------------------------- PNG decoding

def _add_bytes(x, y, mask7, mask8):
    """Bytewise (x + y) mod 256 of two little-endian byte strings held as ints (no carries
    between bytes): the low seven bits add, the top bits are xor-ed in."""
    return ((x & mask7) + (y & mask7)) ^ ((x ^ y) & mask8)


def decode_png(data):
    """(width, height, RGBA bytes, row by row) of an 8-bit RGB/RGBA/grey PNG. The filters None, Up
    and Sub of whole rows run as bytewise arithmetic on Python ints (C speed); Average and Paeth,
    which depend on the reconstructed left neighbour, byte by byte."""
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise CheckFailed('not a PNG')
    pos, idat, width = 8, b'', None
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], 'big')
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            width, height = int.from_bytes(body[0:4], 'big'), int.from_bytes(body[4:8], 'big')
            depth, ctype, interlace = body[8], body[9], body[12]
            if depth != 8 or interlace != 0 or ctype not in (0, 2, 4, 6):
                raise CheckFailed(f'unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})')
        elif kind == b'IDAT':
            idat += body
        elif kind == b'IEND':
            break
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = width * channels
    mask7 = int.from_bytes(b'\x7f' * stride, 'little')
    mask8 = int.from_bytes(b'\x80' * stride, 'little')
    full = (1 << (8 * stride)) - 1
    out = bytearray()
    prev = bytes(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if f == 1:  # Sub: a prefix sum per channel, by doubling shifts
            x = int.from_bytes(line, 'little')
            shift = 8 * channels
            while shift < 8 * stride:
                x = _add_bytes(x, (x << shift) & full, mask7, mask8)
                shift *= 2
            line = x.to_bytes(stride, 'little')
        elif f == 2:  # Up
            line = _add_bytes(int.from_bytes(line, 'little'), int.from_bytes(prev, 'little'), mask7,
                              mask8).to_bytes(stride, 'little')
        elif f in (3, 4):  # Average, Paeth (PNG spec, sec. 9)
            line = bytearray(line)
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = prev[i]
                if f == 3:
                    line[i] = (line[i] + (a + b) // 2) & 255
                else:
                    c = prev[i - channels] if i >= channels else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            line = bytes(line)
        elif f != 0:
            raise CheckFailed(f'bad PNG filter {f}')
        prev = line
        out += line
    n = width * height
    if channels == 4:
        return width, height, bytes(out)
    rgba = bytearray(4 * n)
    if channels == 3:
        for k in range(3):
            rgba[k::4] = out[k::3]
        rgba[3::4] = b'\xff' * n
    elif channels == 2:
        for k in range(3):
            rgba[k::4] = out[0::2]
        rgba[3::4] = out[1::2]
    else:
        for k in range(3):
            rgba[k::4] = out
        rgba[3::4] = b'\xff' * n
    return width, height, bytes(rgba)


def analyse(png):
    """Pixel statistics of a rendering (transparent pixels count as background)."""
    w, h, rgba = decode_png(png)
    counts = {}  # (r, g, b), or None for transparent pixels: number of pixels
    for v, n in collections.Counter(memoryview(rgba).cast('I')).items():
        r, g, b, a = v.to_bytes(4, sys.byteorder)
        key = (r, g, b) if a > 0 else None
        counts[key] = counts.get(key, 0) + n
    total = w * h
    background = max(counts, key=counts.get)
    near = lambda c, ref, tol: c is not None and sum(abs(x - y) for x, y in zip(c, ref)) <= tol
    blueish = lambda c: c is not None and c[2] - c[0] > 30 and c[2] >= c[1]
    orangeish = lambda c: c is not None and c[0] - c[2] > 70 and c[0] > c[1] and c[1] - c[2] > 20
    stat = {
        'size': [w, h],
        'distinct_colours': len(counts),
        'background': background,
        'non_background_fraction': 1.0 - counts[background] / total,
        'shape1_fraction': sum(n for c, n in counts.items() if blueish(c)) / total,
        'shape2_fraction': sum(n for c, n in counts.items() if orangeish(c)) / total,
        'p1_pixels': sum(n for c, n in counts.items() if near(c, P1, 12)),
        'p2_pixels': sum(n for c, n in counts.items() if near(c, P2, 12)),
        'active_pixels': sum(n for c, n in counts.items() if near(c, ACTIVE, 24)),
    }
    return stat


def check_picture(stat, where):
    problems = []
    if stat['background'] is None:
        problems.append('the canvas is transparent (nothing was drawn)')
    if stat['non_background_fraction'] < 0.05:
        problems.append(f"only {stat['non_background_fraction']:.1%} of the pixels differ from the background")
    if stat['distinct_colours'] < 200:
        problems.append(f"only {stat['distinct_colours']} distinct colours")
    if stat['shape1_fraction'] < 0.005:
        problems.append(f"body 1 (blue) hardly visible: {stat['shape1_fraction']:.2%} of the pixels")
    if stat['shape2_fraction'] < 0.005:
        problems.append(f"body 2 (orange) hardly visible: {stat['shape2_fraction']:.2%} of the pixels")
    if stat['p1_pixels'] < 20:
        problems.append(f"witness point p1 not visible ({stat['p1_pixels']} pixels)")
    if stat['p2_pixels'] < 20:
        problems.append(f"witness point p2 not visible ({stat['p2_pixels']} pixels)")
    return [f'{where}: {p}' for p in problems]


# ----------------------------------------------------------------------------- Chromium

def find_chromium():
    for name in ('chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """Headless Chromium driven through the DevTools protocol on fds 3/4 (--remote-debugging-pipe)."""

    def __init__(self, exe, log_path):
        self.profile = tempfile.mkdtemp(prefix='diffcol-chromium-')
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Move the child's ends above 10 so that dup2 onto 3 and 4 cannot clobber them.
        hi_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD_CLOEXEC, 10)
        hi_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_chrome_r)
        os.close(from_chrome_w)

        def child_fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [exe, '--headless', '--remote-debugging-pipe', f'--user-data-dir={self.profile}',
                '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-first-run',
                '--no-default-browser-check', '--disable-extensions', '--hide-scrollbars', '--mute-audio',
                f'--window-size={WIDTH},{HEIGHT}', 'about:blank']
        if os.geteuid() == 0:
            args.insert(1, '--no-sandbox')  # Chromium refuses to start as root with its sandbox
        self.log = open(log_path, 'wb')
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                     preexec_fn=child_fds, close_fds=False)
        os.close(hi_r)
        os.close(hi_w)
        self.buffer = b''
        self.next_id = 0
        self.events = []

    def close(self):
        try:
            self.send('Browser.close', timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.to_chrome, self.from_chrome):
            os.close(fd)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b'\0' not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CheckFailed('timed out waiting for Chromium')
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if ready:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise CheckFailed('Chromium closed the DevTools pipe (crashed?)')
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b'\0', 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session:
            msg['sessionId'] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b'\0')
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get('id') == self.next_id:
                if 'error' in reply:
                    raise CheckFailed(f'{method}: {reply["error"]}')
                return reply.get('result', {})
            if 'method' in reply:
                self.events.append(reply)

    def pump(self, seconds):
        """Collects events for a while."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read_message(deadline))
        except CheckFailed as e:
            if 'timed out' not in str(e):
                raise


class Page:
    def __init__(self, browser):
        self.b = browser
        target = browser.send('Target.createTarget', {'url': 'about:blank'})['targetId']
        self.target = target
        self.session = browser.send('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        for m in ('Runtime.enable', 'Log.enable', 'Page.enable', 'Network.enable'):
            self.call(m)
        self.call('Emulation.setDeviceMetricsOverride',
                  {'width': WIDTH, 'height': HEIGHT, 'deviceScaleFactor': 1, 'mobile': False})

    def call(self, method, params=None, timeout=30):
        return self.b.send(method, params, session=self.session, timeout=timeout)

    def evaluate(self, expression, timeout=30):
        r = self.call('Runtime.evaluate', {'expression': expression, 'returnByValue': True, 'awaitPromise': True},
                      timeout=timeout)
        if 'exceptionDetails' in r:
            raise CheckFailed(f'evaluating {expression!r}: {r["exceptionDetails"].get("text")}')
        return r['result'].get('value')

    def problems(self):
        """Console errors, exceptions, log errors and off-machine requests seen in this page."""
        out = []
        for e in self.b.events:
            if e.get('sessionId') != self.session:
                continue
            m, p = e['method'], e.get('params', {})
            if m == 'Runtime.exceptionThrown':
                d = p['exceptionDetails']
                out.append('uncaught exception: ' + (d.get('exception', {}).get('description') or d.get('text', '')))
            elif m == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert'):
                out.append('console.' + p['type'] + ': ' +
                           ' '.join(str(a.get('value', a.get('description', ''))) for a in p.get('args', [])))
            elif m == 'Log.entryAdded' and p['entry'].get('level') == 'error':
                out.append('browser log error: ' + p['entry'].get('text', ''))
            elif m == 'Network.requestWillBeSent':
                url = p['request']['url']
                if not url.startswith(('file:', 'blob:', 'data:', 'about:')):
                    out.append('network request (the page must work offline): ' + url)
        return out

    def close(self):
        self.b.send('Target.closeTarget', {'targetId': self.target})


def screenshot(page, path):
    data = base64.b64decode(page.call('Page.captureScreenshot', {'format': 'png'})['data'])
    with open(path, 'wb') as f:
        f.write(data)
    return data


def canvas_png(page):
    url = page.evaluate("window.diffcolView.renderer.domElement.toDataURL('image/png')")
    return base64.b64decode(url.split(',', 1)[1])


def load_page(browser, page, html, out_prefix):
    """Opens the page, waits for the loader (60 s), saves a screenshot (returned) and raises
    CheckFailed unless the page reports status 'ok'."""
    page.call('Page.navigate', {'url': 'file://' + os.path.abspath(html)})
    deadline = time.monotonic() + 60
    status = None
    while time.monotonic() < deadline:
        status = page.evaluate('window.diffcolView ? window.diffcolView.status : "no loader"')
        if status not in ('loading', 'no loader'):
            break
        time.sleep(0.05)
    browser.pump(0.2)  # late console messages
    shot = screenshot(page, out_prefix + '.png')
    if status != 'ok':
        problems = page.problems()
        errors = page.evaluate('window.diffcolView ? window.diffcolView.errors : []') or []
        problems.append(f'page status {status!r}' + (': ' + ' | '.join(errors) if errors else ''))
        raise CheckFailed('; '.join(problems))
    return shot


def check_manifold_picture(stat, where, expect_markers):
    problems = []
    if stat['background'] is None:
        problems.append('the canvas is transparent (nothing was drawn)')
    if stat['non_background_fraction'] < 0.05:
        problems.append(f"only {stat['non_background_fraction']:.1%} of the pixels differ from the background")
    if stat['shape1_fraction'] < 0.005:
        problems.append(f"body 1 (blue) hardly visible: {stat['shape1_fraction']:.2%} of the pixels")
    if stat['shape2_fraction'] < 0.005:
        problems.append(f"body 2 (orange) hardly visible: {stat['shape2_fraction']:.2%} of the pixels")
    if expect_markers and stat['active_pixels'] < 20:
        problems.append(f"no active manifold markers drawn ({stat['active_pixels']} red pixels)")
    if not expect_markers and stat['active_pixels'] > 5:
        problems.append(f"manifold markers drawn where none is active ({stat['active_pixels']} red pixels)")
    return [f'{where}: {p}' for p in problems]


def check_manifold_page(browser, html, frames, out_prefix):
    """A --manifold-demo page: frame 1 separated (no active markers), the last frame in contact."""
    page = Page(browser)
    try:
        load_page(browser, page, html, out_prefix)
        problems = page.problems()
        if page.evaluate('window.diffcolView.kind') != 'mesh':
            problems.append('not rendered as a mesh page')
        count = page.evaluate('window.diffcolView.frameCount')
        if count != frames:
            problems.append(f'the page has {count} frames, expected {frames}')
        first_png = canvas_png(page)
        first = analyse(first_png)
        problems += check_manifold_picture(first, 'frame 1', expect_markers=False)
        if page.evaluate('window.diffcolView.markersShown()') != 0:
            problems.append('frame 1: markers shown although the boxes are apart')
        page.evaluate(f'window.diffcolView.setFrame({frames - 1})')
        screenshot(page, out_prefix + '-last.png')
        last_png = canvas_png(page)
        last = analyse(last_png)
        problems += check_manifold_picture(last, f'frame {frames}', expect_markers=True)
        shown = page.evaluate('window.diffcolView.markersShown()')
        if shown < 4:
            problems.append(f'frame {frames}: only {shown} manifold markers shown')
        if last_png == first_png:
            problems.append('moving the slider did not change the picture')
        problems += page.problems()
        if problems:
            raise CheckFailed('; '.join(dict.fromkeys(problems)))
        return {'triangles': page.evaluate('window.diffcolView.triangles()'), 'markers_shown': shown,
                'frame1': first, 'last': last}
    finally:
        page.close()


def check_page(browser, html, frames, out_prefix):
    """Raises CheckFailed with the reasons when the page does not pass; returns a summary."""
    page = Page(browser)
    try:
        shot = load_page(browser, page, html, out_prefix)
        problems = page.problems()
        count = page.evaluate('window.diffcolView.frameCount')
        if count != frames:
            problems.append(f'the page has {count} frames, expected {frames}')
        first_png = canvas_png(page)
        first = analyse(first_png)
        problems += check_picture(first, 'frame 1')
        if analyse(shot)['distinct_colours'] < 200:
            problems.append('the screenshot is nearly uniform')
        triangles = page.evaluate('window.diffcolView.triangles()')
        if triangles < 1000:
            problems.append(f'only {triangles} triangles drawn')
        summary = {'triangles': triangles, 'frame1': first}
        if frames > 1:
            page.evaluate(f'window.diffcolView.setFrame({frames - 1})')
            screenshot(page, out_prefix + '-last.png')
            last_png = canvas_png(page)
            last = analyse(last_png)
            problems += check_picture(last, f'frame {frames}')
            if last_png == first_png:
                problems.append('moving the slider did not change the picture')
            summary['last'] = last
        problems += page.problems()
        if problems:
            raise CheckFailed('; '.join(dict.fromkeys(problems)))
        return summary
    finally:
        page.close()



def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise CheckFailed(f'{" ".join(cmd)} exited {r.returncode}: {r.stderr.strip()}')
    return r.stdout


def verdict(name, check, expected_reason):
    """Runs check() (a page check) on a broken page, which must be rejected with a reason containing
    expected_reason. Returns 1 if the verdict is wrong, else 0, and prints it."""
    try:
        check()
        passed, reason = True, ''
    except CheckFailed as e:
        passed, reason = False, str(e)
    ok = not passed and expected_reason in reason
    print(f'{"PASS" if ok else "FAIL"} {name}: page {"passed" if passed else "rejected"}' +
          (f' ({reason})' if reason else f' (expected a rejection: {expected_reason})'))
    return 0 if ok else 1


def negative_cases(browser, still, manifold_page, manifold_frames, out):
    """Broken copies of the good pages; each must be rejected for the expected reason. Returns the
    number of wrong verdicts."""
    with open(still, encoding='utf-8') as f:
        good = f.read()
    # name: (text to replace, replacement, a reason the check must give)
    broken = {
        'throws': ('export function start(view) {',
                   "export function start(view) {\n  throw new Error('deliberately broken');",
                   'deliberately broken'),
        'draws-nothing': ('const render = () => renderer.render(world, camera);', 'const render = () => {};',
                          'the canvas is transparent'),
        'hides-body-2': ('world.add(solid, scaled);', 'if (i === 0) world.add(solid, scaled);',
                         'body 2 (orange) hardly visible'),
        'hides-contact': ('const contact = showContact.checked && f.ok;', 'const contact = false;',
                          'witness point p1 not visible'),
        'missing-three': ('<script type="text/plain" id="three-core">',
                          '<script type="text/plain" id="three-core-removed">', "page status 'error'"),
        'uses-network': ('<div id="diffcol-canvas"></div>',
                         '<div id="diffcol-canvas"></div><img src="http://diffcol-viewer-test.invalid/x.png">',
                         'network request'),
    }
    failures = 0
    for name, (old, new, reason) in broken.items():
        if good.count(old) != 1:
            raise CheckFailed(f'negative case {name}: the page no longer contains {old!r}')
        path = out(f'negative-{name}.html')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(good.replace(old, new))
        failures += verdict(name, lambda: check_page(browser, path, 1, out(f'negative-{name}')), reason)
    # The manifold page: a copy that never shows the markers is rejected.
    with open(manifold_page, encoding='utf-8') as f:
        good_manifold = f.read()
    old = 'const visible = showManifold.checked && mf'
    if good_manifold.count(old) != 1:
        raise CheckFailed(f'negative case manifold: the page no longer contains {old!r}')
    path = out('negative-manifold-hides-markers.html')
    with open(path, 'w', encoding='utf-8') as f:
        f.write(good_manifold.replace(old, 'const visible = false && mf'))
    failures += verdict('manifold-hides-markers',
                        lambda: check_manifold_page(browser, path, manifold_frames, out('negative-manifold-hides-markers')),
                        'no active manifold markers drawn')
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--diffcol', required=True, help='the diffcol program')
    ap.add_argument('--out-dir', required=True, help='pages, screenshots and the browser log go here')
    ap.add_argument('--only', choices=('pages', 'negative'),
                    help='run only the checks of the good pages, or only the broken-page cases')
    args = ap.parse_args()

    exe = find_chromium()
    if not exe:
        # Where the viewer was set up on purpose (CI, scripts/test.sh), a missing browser is a failure.
        if os.environ.get('DIFFCOL_REQUIRE_CHROMIUM') == '1' or os.environ.get('CI') == 'true':
            print('FAIL: chromium not found, and CI=true or DIFFCOL_REQUIRE_CHROMIUM=1 (run bash viewer/setup.sh)')
            return 1
        print('SKIPPED: chromium not found (Debian: apt-get install chromium; or bash viewer/setup.sh)')
        return SKIP
    os.makedirs(args.out_dir, exist_ok=True)
    out = lambda name: os.path.join(args.out_dir, name)

    # A still page and an animated one (body 2 sweeps past body 1 into contact and out).
    still = out('still.html')
    print(run([args.diffcol, 'view', '--shape1', 'poly', '--shape2', 'se', '--pose1', '0,0,0,0.96,0.1,0.2,0.15',
               '--pose2', '1.9,0.9,0.4,0.9,0.3,-0.2,0.25', '--title', 'diffcol view test', '--out', still]).strip())
    anim = out('animated.html')
    frames = 24
    print(run([args.diffcol, 'view', '--shape1', 'tc', '--shape2', 'sec', '--pose2', '3,-1.5,0.5',
               '--pose2-to', '-1,1.6,0,0.8,0.2,0.5,0.2', '--steps', str(frames), '--out', anim]).strip())

    # DCOL and DiffPills pages: a box sliding into a cone (apart first, penetrating last), a capsule
    # over a padded rectangle.
    dcol_page = out('dcol.html')
    dcol_frames = 12
    print(run([args.diffcol, 'view', '--method', 'dcol', '--shape1', 'cone', '--shape2', 'box:half_extents=0.5/0.4/0.6',
               '--pose2', '2.6,0.5,0.3,0.9,0.1,0.3,0.2', '--pose2-to', '1.2,0.5,0.3,0.9,0.1,0.3,0.2',
               '--steps', str(dcol_frames), '--out', dcol_page]).strip())
    qp_page = out('qp.html')
    print(run([args.diffcol, 'view', '--method', 'qp', '--shape1', 'capsule:radius=0.4,length=2',
               '--shape2', 'padded_polygon:half_x=0.8,half_y=0.5,radius=0.15', '--pose2', '0.3,1.5,0.2,0.9,0.3,0.1,0.2',
               '--out', qp_page]).strip())

    # The Contax manifold page: box 2 lowered onto box 1 (separated first, in contact last).
    manifold_page = out('manifold.html')
    manifold_frames = 6
    print(run([args.diffcol, 'view', '--manifold-demo', '--steps', str(manifold_frames), '--out', manifold_page]).strip())

    browser = Browser(exe, out('chromium.log'))
    failures = 0
    try:
        if args.only != 'negative':
            for html, n in ((still, 1), (anim, frames), (dcol_page, dcol_frames), (qp_page, 1)):
                name = os.path.splitext(os.path.basename(html))[0]
                try:
                    summary = check_page(browser, html, n, out(name))
                    print(f'PASS {name}: ' + json.dumps(summary))
                except CheckFailed as e:
                    failures += 1
                    print(f'FAIL {name}: {e}')
            try:
                summary = check_manifold_page(browser, manifold_page, manifold_frames, out('manifold'))
                print('PASS manifold: ' + json.dumps(summary))
            except CheckFailed as e:
                failures += 1
                print(f'FAIL manifold: {e}')
        if args.only != 'pages':
            failures += negative_cases(browser, still, manifold_page, manifold_frames, out)
    finally:
        browser.close()
    print(f'{failures} failed' if failures else 'all checks passed')
    return 1 if failures else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except CheckFailed as e:
        print(f'FAIL: {e}')
        sys.exit(1)
