// diffcol view: renders the scene JSON of diffcol::view::scene_json, dcol_scene_json and
// qp_scene_json (format "diffcol-view/1") and mesh_scene_json ("diffcol-mesh-view/1"; docs/viewer.md)
// with three.js. Loaded by the loader in template.html, which calls start(view).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const SHAPE_COLORS = [0x4e79a7, 0xf28e2b];  // body 1 blue, body 2 orange
const P1_COLOR = 0xd81b60;                  // witness point on body 1 (magenta)
const P2_COLOR = 0x1e8a3c;                  // witness point on body 2 (green)
const X_COLOR = 0x111111;                   // touching point x of the scaled shapes (black)
const NORMAL_COLOR = 0xe41a1c;              // normal out of body 1 (red)
const AXIS_COLORS = [0xc45a5a, 0x4f9a4f, 0x5a6fc4];  // world x, y, z (muted: not the markers' colours)
const GRID_COLOR = 0xc9ccd1, GRID_CENTER_COLOR = 0xa9adb4, BAR_COLOR = 0x30363d;

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
  if (scene.format === 'diffcol-mesh-view/1') return startMeshView(view, scene);
  if (scene.format !== 'diffcol-view/1') throw new Error('scene: unknown format ' + scene.format);
  const frames = scene.frames;
  if (!Array.isArray(frames) || frames.length === 0) throw new Error('scene: no frames');
  // idcol (iDCOL) and dcol (DCOL): witness points p1, p2 of eq. (29), x*, bodies scaled by alpha*;
  // qp (DiffPills): closest points on the padded surfaces (eq. (21)-(22)), no scaling
  const method = scene.method || 'idcol';
  if (!['idcol', 'dcol', 'qp'].includes(method)) throw new Error('scene: unknown method ' + method);
  const scaling = method !== 'qp';
  const witness1 = 'p1_W';
  const witness2 = 'p2_W';

  // renderer, camera, lights, orbit controls, axes, grid, scale bar
  const stage = makeStage(scene);
  const { world } = stage;

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
  const names = method === 'qp' ? ['closest point 1', 'closest point 2'] : ['p1 (on body 1)', 'p2 (on body 2)'];
  row(`<span class="swatch dot" style="background:${hex(P1_COLOR)}"></span>${names[0]}` +
      `<span class="swatch dot" style="background:${hex(P2_COLOR)}"></span>${names[1]}` +
      `<span class="swatch" style="background:${hex(NORMAL_COLOR)}"></span>normal`);
  const toggles = row((scaling ? `<label><input type="checkbox" id="diffcol-show-scaled"> scaled shapes (α*)</label>` : '') +
                      `<label><input type="checkbox" id="diffcol-show-contact" checked> contact</label>`);
  const showScaled = toggles.querySelector('#diffcol-show-scaled') || { checked: false, addEventListener() {} };
  const showContact = toggles.querySelector('#diffcol-show-contact');
  showScaled.checked = scaling && !!scene.settings.show_scaled_shapes;
  scaleRow(row, stage);

  const info = document.getElementById('diffcol-frame');
  const dt = scene.settings.frame_duration;

  function draw(current) {
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
    const hasNormal = f.normal_W.some((v) => v !== 0);
    normal.visible = contact && hasNormal;
    x.visible = contact && scaling;
    if (f.ok) {
      p1.position.copy(vec(f[witness1]));
      p2.position.copy(vec(f[witness2]));
      if (scaling) x.position.copy(vec(f.x_W));
      normal.position.copy(vec(f[witness1]));
      if (hasNormal) normal.setDirection(vec(f.normal_W));
      segment.geometry.setFromPoints([vec(f[witness1]), vec(f[witness2])]);
    }
    const v3 = (v) => `[${v.map((c) => fmt(c, 4)).join(', ')}]`;
    const head = `frame ${current + 1}/${frames.length}   t = ${fmt(current * dt, 4)} s\n`;
    if (method === 'qp') {
      info.textContent = head +
        `status  ${f.status}${f.cores_touch ? ' (cores touch)' : ''}\n` +
        `signed distance ${fmt(f.signed_distance)}   phi ${fmt(f.phi)}\n` +
        `p1_W    [${f.p1_W.map((v) => fmt(v, 4)).join(', ')}]\n` +
        `p2_W    ${v3(f.p2_W)}\n` +
        `core1_W ${v3(f.core1_W)}\n` +
        `core2_W ${v3(f.core2_W)}\n` +
        `normal  ${v3(f.normal_W)}`;
    } else {
      info.textContent = head +
        `status  ${f.status} (${f.iterations} iterations)\n` +
        `alpha*  ${fmt(f.alpha)}   gap ${fmt(f.gap)}\n` +
        `p1_W    [${f.p1_W.map((v) => fmt(v, 4)).join(', ')}]\n` +
        `p2_W    ${v3(f.p2_W)}\n` +
        `normal  ${v3(f.normal_W)}`;
    }
  }

  const player = runFrames(view, stage, frames, scene.settings, draw);
  for (const el of [showScaled, showContact]) el.addEventListener('change', player.redraw);
  return view;
}

// The frame loop shared by both page kinds. draw(i) updates the objects for frame i; this
// function owns the rest: the timeline (slider, time label, play button), rendering on camera
// moves and resizes, the first frame and autoplay, and the hooks that tests and scripts use
// (view.frameCount, view.frame, view.setFrame, view.renderer, view.triangles, view.status,
// view.gridStep).
// Returns { redraw } for controls that change what a frame shows.
function runFrames(view, stage, frames, settings, draw) {
  const { host, renderer, world, camera, controls } = stage;
  const slider = document.getElementById('diffcol-slider');
  const timeLabel = document.getElementById('diffcol-time');
  const playButton = document.getElementById('diffcol-play');
  const dt = settings.frame_duration;
  let current = 0;
  const render = () => renderer.render(world, camera);

  function setFrame(index) {
    current = Math.min(Math.max(0, Math.round(index)), frames.length - 1);
    draw(current);
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
  if (settings.autoplay) play(true);

  view.frameCount = frames.length;
  view.setFrame = (i) => { play(false); setFrame(i); return current; };
  view.renderer = renderer;
  view.triangles = () => renderer.info.render.triangles;
  view.gridStep = stage.step;
  if (view.status === 'loading') view.status = 'ok';
  const status = document.getElementById('diffcol-status');
  if (view.status === 'ok') {
    status.textContent = '';
    console.info('diffcol view: drawn');  // read by render_png (diffcol view --png) from the browser log
  }
  return { redraw: () => setFrame(current) };
}

// ------------------------------------------------------------------ mesh pages

const BODY_COLORS = [0x4e79a7, 0xf28e2b, 0x59a14f, 0xb07aa1, 0x76b7b2, 0xedc948, 0xff9da7, 0x9c755f];
const ACTIVITY_LOW = new THREE.Color(0x2c7bb6);   // activity 0 (blue)
const ACTIVITY_MID = new THREE.Color(0xffd92f);   // activity 0.5 (yellow)
const ACTIVITY_HIGH = new THREE.Color(0xd7191c);  // activity 1 (red)

function activityColor(a, out) {
  const t = Math.min(Math.max(a, 0), 1);
  return t < 0.5 ? out.lerpColors(ACTIVITY_LOW, ACTIVITY_MID, 2 * t) : out.lerpColors(ACTIVITY_MID, ACTIVITY_HIGH, 2 * t - 1);
}

// Renderer, camera, lights and orbit controls around the scene's bounding sphere.
function makeStage(scene) {
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
  const step = addGuides(world, center, radius);
  return { host, renderer, world, camera, controls, radius, step };
}

// The grid spacing: 1, 2 or 5 times a power of ten, about a fifth of the scene radius.
function niceStep(radius) {
  const raw = radius / 5;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

// A text label drawn on a canvas, as a sprite `height` world units tall, always in front.
function label(text, color, height) {
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d');
  const font = 'bold 48px system-ui, sans-serif';
  ctx.font = font;
  canvas.width = Math.ceil(ctx.measureText(text).width) + 16;
  canvas.height = 64;
  ctx.font = font;
  ctx.fillStyle = color;
  ctx.textBaseline = 'middle';
  ctx.fillText(text, 8, 34);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: texture, depthTest: false, toneMapped: false,
                                                             transparent: true }));
  sprite.scale.set(height * canvas.width / canvas.height, height, 1);
  sprite.renderOrder = 3;
  return sprite;
}

// World axes at the origin (x, y, z: two grid spacings long, labelled), a ground grid in the
// world x-y plane at the bottom of the scene's bounding sphere, and a labelled scale bar one grid
// spacing long on the ground in front of the scene. Returns the grid spacing.
function addGuides(world, center, radius) {
  const step = niceStep(radius);
  const fmtLen = (v) => String(Number(v.toPrecision(3)));
  const guides = new THREE.Group();
  guides.name = 'guides';
  world.add(guides);
  // ground grid: covers the bounding sphere's footprint, lines on multiples of the spacing
  const half = Math.ceil(1.3 * radius / step) * step;
  const cx = Math.round(center.x / step) * step, cy = Math.round(center.y / step) * step;
  const z0 = center.z - radius;
  const lines = [], colors = [];
  const c = new THREE.Color(GRID_COLOR), cc = new THREE.Color(GRID_CENTER_COLOR);
  for (let k = -half / step; k <= half / step + 1e-9; ++k) {
    const col = Math.abs(cx + k * step) < 1e-9 * step || Math.abs(cy + k * step) < 1e-9 * step ? cc : c;
    lines.push(cx + k * step, cy - half, z0, cx + k * step, cy + half, z0);
    lines.push(cx - half, cy + k * step, z0, cx + half, cy + k * step, z0);
    for (let j = 0; j < 4; ++j) colors.push(col.r, col.g, col.b);
  }
  const grid = new THREE.BufferGeometry();
  grid.setAttribute('position', new THREE.Float32BufferAttribute(lines, 3));
  grid.setAttribute('color', new THREE.Float32BufferAttribute(colors, 3));
  guides.add(new THREE.LineSegments(grid, new THREE.LineBasicMaterial({ vertexColors: true, toneMapped: false })));
  // axes at the world origin
  const axisLength = 2 * step, text = 0.45 * step;
  ['x', 'y', 'z'].forEach((name, i) => {
    const dir = new THREE.Vector3().setComponent(i, 1);
    const axis = new THREE.ArrowHelper(dir, new THREE.Vector3(), axisLength, AXIS_COLORS[i], 0.18 * axisLength,
                                       0.07 * axisLength);
    axis.line.material.toneMapped = false;
    axis.cone.material.toneMapped = false;
    guides.add(axis);
    const l = label(name, hex(AXIS_COLORS[i]), text);
    l.position.copy(dir).multiplyScalar(axisLength + 0.4 * text);
    guides.add(l);
  });
  // scale bar: one grid spacing along x on the ground, one square in front of the scene's centre
  // (the camera looks from -y), from one grid line to the next
  const y0 = cy - step, x0 = cx;
  const bar = new THREE.Mesh(new THREE.BoxGeometry(step, 0.06 * step, 0.06 * step),
                             new THREE.MeshBasicMaterial({ color: BAR_COLOR, toneMapped: false }));
  bar.position.set(x0 + 0.5 * step, y0, z0);
  guides.add(bar);
  const barLabel = label(fmtLen(step), hex(BAR_COLOR), text);
  barLabel.position.set(x0 + 0.5 * step, y0, z0 + 0.6 * text);
  guides.add(barLabel);
  guides.userData = { step, groundZ: z0 };
  return step;
}

// The panel row that states the scale.
function scaleRow(row, stage) {
  const len = (v) => String(Number(v.toPrecision(3)));
  const axis = (name, i) => `<b style="color:${hex(AXIS_COLORS[i])}">${name}</b>`;
  row(`<span class="swatch" style="background:${hex(GRID_CENTER_COLOR)}"></span>` +
      `<span>grid ${len(stage.step)} per square, scale bar ${len(stage.step)}; axes ` +
      `${axis('x', 0)} ${axis('y', 1)} ${axis('z', 2)} at the origin, ${len(2 * stage.step)} long</span>`);
}

// Bodies as flat-shaded meshes with per-frame poses; the manifold (if any) as points and normal
// arrows scaled and coloured by activity (Contax seed, Fig. 5).
function startMeshView(view, scene) {
  const frames = scene.frames;
  if (!Array.isArray(frames) || frames.length === 0) throw new Error('scene: no frames');
  const stage = makeStage(scene);
  const { world, radius } = stage;
  const bodies = scene.bodies.map((body, i) => {
    const color = BODY_COLORS[i % BODY_COLORS.length];
    const solid = new THREE.Mesh(geometryOf(body.mesh), new THREE.MeshPhongMaterial({
      color, shininess: 30, flatShading: true, transparent: true, opacity: 1 }));
    const edges = new THREE.LineSegments(new THREE.EdgesGeometry(solid.geometry, 20),
                                         new THREE.LineBasicMaterial({ color: 0x30363d, transparent: true, opacity: 0.5 }));
    solid.add(edges);
    world.add(solid);
    return { solid, color };
  });
  frames.forEach((f, k) => {
    if (!Array.isArray(f.poses) || f.poses.length !== bodies.length) throw new Error(`scene: frame ${k} needs one pose per body`);
  });

  // manifold markers: a pool sized to the largest manifold
  const hasManifold = frames.some((f) => f.manifold);
  const maxCount = frames.reduce((m, f) => Math.max(m, f.manifold ? f.manifold.count : 0), 0);
  const pointRadius = 0.025 * Math.min(scene.scale, radius);
  const pointGeometry = new THREE.SphereGeometry(pointRadius, 12, 6);
  const markers = [];
  for (let i = 0; i < maxCount; ++i) {
    const point = new THREE.Mesh(pointGeometry, overlay(0xffffff));
    const arrow = new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), new THREE.Vector3(), 1, 0xffffff);
    arrow.line.material = new THREE.LineBasicMaterial({ color: 0xffffff, depthTest: false, toneMapped: false, transparent: true });
    arrow.cone.material = overlay(0xffffff);
    point.renderOrder = 2;
    arrow.renderOrder = 2;
    arrow.line.renderOrder = 2;
    arrow.cone.renderOrder = 2;
    world.add(point, arrow);
    markers.push({ point, arrow });
  }

  // legend and toggles
  const legend = document.getElementById('diffcol-legend');
  const row = (html) => { const d = document.createElement('div'); d.className = 'row'; d.innerHTML = html; legend.appendChild(d); return d; };
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
  scene.bodies.forEach((b, i) => row(`<span class="swatch" style="background:${hex(bodies[i].color)}"></span>${esc(b.name)}`));
  scaleRow(row, stage);
  let showManifold = { checked: false }, transparentBodies = { checked: false }, minActivity = { value: '0' };
  if (hasManifold) {
    row(`manifold: normals scaled by activity, colour ` +
        `<span class="swatch" style="background:${hex(ACTIVITY_LOW.getHex())}"></span>0` +
        `<span class="swatch" style="background:${hex(ACTIVITY_MID.getHex())}"></span>0.5` +
        `<span class="swatch" style="background:${hex(ACTIVITY_HIGH.getHex())}"></span>1`);
    const toggles = row(`<label><input type="checkbox" id="diffcol-show-manifold" checked> manifold</label>` +
                        `<label><input type="checkbox" id="diffcol-transparent"> see-through bodies</label>`);
    showManifold = toggles.querySelector('#diffcol-show-manifold');
    transparentBodies = toggles.querySelector('#diffcol-transparent');
    const threshold = row(`<label>min activity <input type="range" id="diffcol-min-activity" min="0" max="1" step="0.01"></label>` +
                          `<span id="diffcol-min-activity-value"></span>`);
    minActivity = threshold.querySelector('#diffcol-min-activity');
    minActivity.value = String(scene.settings.min_activity);
  }

  const info = document.getElementById('diffcol-frame');
  const dt = scene.settings.frame_duration;
  const normalLength = scene.settings.normal_length;
  const color = new THREE.Color();

  function draw(current) {
    const f = frames[current];
    f.poses.forEach((pose, i) => {
      const q = pose.quaternion;  // [w, x, y, z]
      const m = bodies[i].solid;
      m.position.set(pose.position[0], pose.position[1], pose.position[2]);
      m.quaternion.set(q[1], q[2], q[3], q[0]);
      m.material.opacity = transparentBodies.checked ? 0.35 : 1;
      m.material.depthWrite = !transparentBodies.checked;
    });
    const mf = f.manifold;
    const threshold = Number(minActivity.value);
    let shown = 0, active = 0, minDistance = Infinity;
    markers.forEach((mk, i) => {
      const visible = showManifold.checked && mf && i < mf.count && mf.activities[i] >= threshold;
      mk.point.visible = visible;
      mk.arrow.visible = visible && mf.activities[i] > 0;
      if (!visible) return;
      const a = mf.activities[i];
      activityColor(a, color);
      mk.point.material.color.copy(color);
      mk.point.position.copy(vec(mf.points[i]));
      mk.arrow.position.copy(vec(mf.points[i]));
      mk.arrow.setDirection(vec(mf.normals[i]));
      const len = Math.max(normalLength * a, 1e-9);
      mk.arrow.setLength(len, 0.25 * len, 0.12 * len);
      mk.arrow.setColor(color);
      shown += 1;
    });
    if (mf) {
      for (let i = 0; i < mf.count; ++i) {
        if (mf.activities[i] > 0.5) {
          active += 1;
          minDistance = Math.min(minDistance, mf.distances[i]);
        }
      }
    }
    const label = document.getElementById('diffcol-min-activity-value');
    if (label) label.textContent = threshold.toFixed(2);
    info.textContent =
      `frame ${current + 1}/${frames.length}   t = ${fmt(current * dt, 4)} s\n` +
      (mf ? `manifold: ${mf.count} entries, ${active} with activity > 0.5, ${shown} shown\n` +
            `min distance of those ${fmt(minDistance, 4)}` : `${bodies.length} bodies`);
  }

  view.kind = 'mesh';
  view.markersShown = () => markers.filter((m) => m.point.visible).length;
  const player = runFrames(view, stage, frames, scene.settings, draw);
  if (hasManifold) {
    for (const el of [showManifold, transparentBodies]) el.addEventListener('change', player.redraw);
    minActivity.addEventListener('input', player.redraw);
  }
  return view;
}
