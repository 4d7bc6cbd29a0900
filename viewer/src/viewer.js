// diffcol view: renders the scene JSON of diffcol::view::scene_json (format "diffcol-view/1",
// docs/viewer.md) with three.js. Loaded by the loader in template.html, which calls start(view).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const SHAPE_COLORS = [0x4e79a7, 0xf28e2b];  // body 1 blue, body 2 orange
const P1_COLOR = 0xd81b60;                  // witness point on body 1 (magenta)
const P2_COLOR = 0x1e8a3c;                  // witness point on body 2 (green)
const X_COLOR = 0x111111;                   // touching point x of the scaled shapes (black)
const NORMAL_COLOR = 0xe41a1c;              // normal out of body 1 (red)

// Base64 (little-endian) to a typed array.
function decode(b64, Type) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
  return new Type(bytes.buffer);
}

function hex(c) { return '#' + c.toString(16).padStart(6, '0'); }
function fmt(v, digits = 6) { return Number.isFinite(v) ? v.toPrecision(digits) : String(v); }
function vec(v) { return new THREE.Vector3(v[0], v[1], v[2]); }

function geometryOf(mesh) {
  const g = new THREE.BufferGeometry();
  const positions = decode(mesh.positions, Float32Array);
  const normals = decode(mesh.normals, Float32Array);
  const indices = decode(mesh.indices, mesh.index_type === 'uint16' ? Uint16Array : Uint32Array);
  if (positions.length !== 3 * mesh.vertex_count || normals.length !== 3 * mesh.vertex_count ||
      indices.length !== 3 * mesh.triangle_count) {
    throw new Error('scene: mesh array sizes do not match vertex_count / triangle_count');
  }
  g.setAttribute('position', new THREE.BufferAttribute(positions, 3));
  g.setAttribute('normal', new THREE.BufferAttribute(normals, 3));
  g.setIndex(new THREE.BufferAttribute(indices, 1));
  g.computeBoundingSphere();
  return g;
}

// Unlit material drawn over everything (markers stay visible inside or behind the shapes).
// 'transparent' puts the markers in three's transparent pass, after the translucent scaled
// shapes (renderOrder 1), so those do not tint them.
function overlay(color) {
  return new THREE.MeshBasicMaterial({ color, depthTest: false, depthWrite: false, toneMapped: false,
                                       transparent: true, opacity: 1 });
}

export function start(view) {
  const scene = JSON.parse(document.getElementById('diffcol-scene').textContent);
  if (scene.format !== 'diffcol-view/1') throw new Error('scene: unknown format ' + scene.format);
  const frames = scene.frames;
  if (!Array.isArray(frames) || frames.length === 0) throw new Error('scene: no frames');

  // renderer, camera, lights
  const host = document.getElementById('diffcol-canvas');
  let renderer;
  try {
    renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  } catch (e) {
    throw new Error('WebGL is not available in this browser: ' + e.message);
  }
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.setSize(host.clientWidth || window.innerWidth, host.clientHeight || window.innerHeight);
  host.appendChild(renderer.domElement);

  const world = new THREE.Scene();
  world.background = new THREE.Color(0xf3f4f6);
  const center = vec(scene.bounds.center);
  const radius = Math.max(scene.bounds.radius, 1e-9);
  const camera = new THREE.PerspectiveCamera(40, 1, radius * 1e-3, radius * 100);
  // A three-quarter view from +x, −y, +z (z up), far enough to hold the bounding sphere.
  camera.up.set(0, 0, 1);
  const dir = new THREE.Vector3(0.55, -1.0, 0.45).normalize();
  camera.position.copy(center).addScaledVector(dir, radius / Math.sin(THREE.MathUtils.degToRad(18)));
  camera.lookAt(center);
  world.add(new THREE.HemisphereLight(0xffffff, 0x8a8f98, 1.6));
  const headlight = new THREE.DirectionalLight(0xffffff, 1.4);
  camera.add(headlight);
  headlight.position.set(0.4, 0.8, 0.3);
  world.add(camera);

  const controls = new OrbitControls(camera, renderer.domElement);
  controls.target.copy(center);
  controls.update();

  // bodies: solid shape + translucent copy scaled by α about the body origin
  const scale = scene.scale;
  const bodies = scene.shapes.map((shape, i) => {
    const geometry = geometryOf(shape.mesh);
    const color = SHAPE_COLORS[i];
    const solid = new THREE.Mesh(geometry, new THREE.MeshPhongMaterial({ color, shininess: 40 }));
    const scaled = new THREE.Mesh(geometry, new THREE.MeshPhongMaterial({
      color, transparent: true, opacity: 0.2, depthWrite: false, side: THREE.DoubleSide }));
    scaled.renderOrder = 1;
    world.add(solid, scaled);
    return { solid, scaled };
  });

  // contact markers
  const sphereGeometry = new THREE.SphereGeometry(0.045 * scale, 24, 12);
  const p1 = new THREE.Mesh(sphereGeometry, overlay(P1_COLOR));
  const p2 = new THREE.Mesh(sphereGeometry, overlay(P2_COLOR));
  const x = new THREE.Mesh(new THREE.SphereGeometry(0.025 * scale, 16, 8), overlay(X_COLOR));
  const normal = new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), new THREE.Vector3(), 0.7 * scale, NORMAL_COLOR,
                                       0.18 * scale, 0.09 * scale);
  normal.line.material = new THREE.LineBasicMaterial({ color: NORMAL_COLOR, depthTest: false, toneMapped: false,
                                                       transparent: true, linewidth: 2 });
  normal.cone.material = overlay(NORMAL_COLOR);
  const segment = new THREE.Line(new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(), new THREE.Vector3()]),
                                 new THREE.LineBasicMaterial({ color: 0x333333, depthTest: false, toneMapped: false,
                                                               transparent: true }));
  for (const m of [p1, p2, x, normal, segment]) {
    m.renderOrder = 2;
    world.add(m);
  }

  // legend and toggles
  const legend = document.getElementById('diffcol-legend');
  const row = (html) => { const d = document.createElement('div'); d.className = 'row'; d.innerHTML = html; legend.appendChild(d); return d; };
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
  scene.shapes.forEach((s, i) => row(`<span class="swatch" style="background:${hex(SHAPE_COLORS[i])}"></span>` +
                                     `body ${i + 1}: ${esc(s.description)}`));
  row(`<span class="swatch dot" style="background:${hex(P1_COLOR)}"></span>p1 (on body 1)` +
      `<span class="swatch dot" style="background:${hex(P2_COLOR)}"></span>p2 (on body 2)` +
      `<span class="swatch" style="background:${hex(NORMAL_COLOR)}"></span>normal`);
  const toggles = row(`<label><input type="checkbox" id="diffcol-show-scaled"> scaled shapes (α*)</label>` +
                      `<label><input type="checkbox" id="diffcol-show-contact" checked> contact</label>`);
  const showScaled = toggles.querySelector('#diffcol-show-scaled');
  const showContact = toggles.querySelector('#diffcol-show-contact');
  showScaled.checked = !!scene.settings.show_scaled_shapes;

  const info = document.getElementById('diffcol-frame');
  const slider = document.getElementById('diffcol-slider');
  const timeLabel = document.getElementById('diffcol-time');
  const playButton = document.getElementById('diffcol-play');
  const dt = scene.settings.frame_duration;

  let current = 0;
  function render() { renderer.render(world, camera); }

  function setFrame(index) {
    current = Math.min(Math.max(0, Math.round(index)), frames.length - 1);
    const f = frames[current];
    [f.pose1, f.pose2].forEach((pose, i) => {
      const q = pose.quaternion;  // [w, x, y, z]
      for (const m of [bodies[i].solid, bodies[i].scaled]) {
        m.position.set(pose.position[0], pose.position[1], pose.position[2]);
        m.quaternion.set(q[1], q[2], q[3], q[0]);
      }
      const a = f.ok && f.alpha > 0 ? f.alpha : 1;
      bodies[i].scaled.scale.setScalar(a);
      bodies[i].scaled.visible = showScaled.checked && f.ok && f.alpha > 0;
    });
    const contact = showContact.checked && f.ok;
    for (const m of [p1, p2, x, normal, segment]) m.visible = contact;
    if (f.ok) {
      p1.position.copy(vec(f.p1_W));
      p2.position.copy(vec(f.p2_W));
      x.position.copy(vec(f.x_W));
      normal.position.copy(vec(f.p1_W));
      normal.setDirection(vec(f.normal_W));
      segment.geometry.setFromPoints([vec(f.p1_W), vec(f.p2_W)]);
    }
    info.textContent =
      `frame ${current + 1}/${frames.length}   t = ${fmt(current * dt, 4)} s\n` +
      `status  ${f.status} (${f.iterations} iterations)\n` +
      `alpha*  ${fmt(f.alpha)}   gap ${fmt(f.gap)}\n` +
      `p1_W    [${f.p1_W.map((v) => fmt(v, 4)).join(', ')}]\n` +
      `p2_W    [${f.p2_W.map((v) => fmt(v, 4)).join(', ')}]\n` +
      `normal  [${f.normal_W.map((v) => fmt(v, 4)).join(', ')}]`;
    slider.value = String(current);
    timeLabel.textContent = `${current + 1}/${frames.length}  ${fmt(current * dt, 4)} s`;
    render();
    view.frame = current;
  }

  // playback
  let playing = false, startTime = 0, startFrame = 0;
  function tick(now) {
    if (!playing) return;
    const index = startFrame + Math.floor((now - startTime) / (1000 * dt));
    setFrame(index % frames.length);
    requestAnimationFrame(tick);
  }
  function play(on) {
    playing = on && frames.length > 1;
    playButton.textContent = playing ? 'Pause' : 'Play';
    if (playing) {
      startTime = performance.now();
      startFrame = current;
      requestAnimationFrame(tick);
    }
  }
  if (frames.length > 1) {
    document.getElementById('diffcol-timeline').style.display = 'flex';
    slider.max = String(frames.length - 1);
    slider.addEventListener('input', () => { play(false); setFrame(Number(slider.value)); });
    playButton.addEventListener('click', () => play(!playing));
  }
  showScaled.addEventListener('change', () => setFrame(current));
  showContact.addEventListener('change', () => setFrame(current));
  controls.addEventListener('change', render);
  function resize() {
    const w = host.clientWidth || window.innerWidth, h = host.clientHeight || window.innerHeight;
    renderer.setSize(w, h);
    camera.aspect = w / Math.max(h, 1);
    camera.updateProjectionMatrix();
    render();
  }
  window.addEventListener('resize', resize);

  resize();
  setFrame(0);
  if (scene.settings.autoplay) play(true);

  // For tests and scripts: frame control and what was drawn.
  view.frameCount = frames.length;
  view.setFrame = (i) => { play(false); setFrame(i); return current; };
  view.renderer = renderer;
  view.triangles = () => renderer.info.render.triangles;
  if (view.status === 'loading') view.status = 'ok';
  const status = document.getElementById('diffcol-status');
  if (view.status === 'ok') status.textContent = '';
  return view;
}
