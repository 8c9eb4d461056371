// SPDX-License-Identifier: MIT
// The crowd (crowd.html?n=1000&driver=arbor|three&src=URL): n animated, skinned Foxes, each at its
// own time, drawn by three.js and driven either by arbor through the bridge (arbor-three.mjs's
// crowd: every Fox a copy in one arbor scene, one call into the module a frame) or by three.js's
// own AnimationMixer, updateMatrixWorld and Skeleton.update. The update of a frame
// (animation, hierarchy and skin; drawing excluded) is timed and shown; window.crowd.stats()
// gives { driver, n, updateMs } (updateMs: the median of the last 200 frames).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { createArbor } from './arbor.mjs';
import { ArborThree } from './arbor-three.mjs';

const params = new URLSearchParams(location.search);
const n = Math.max(1, Math.min(20000, Number(params.get('n')) || 1000));
const driver = params.get('driver') === 'three' ? 'three' : 'arbor';
const src = params.get('src') || '/samples/Fox/Fox.glb';
const clipName = params.get('clip') || 'Run';
const $ = (id) => document.getElementById(id);

const canvas = $('canvas');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
const world = new THREE.Scene();
world.background = new THREE.Color(0x262626);
world.add(new THREE.HemisphereLight(0xffffff, 0x444444, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(0.4, 1, 0.6);
world.add(sun);
const camera = new THREE.PerspectiveCamera(45, 1, 1, 1e5);
const controls = new OrbitControls(camera, canvas);

// Each Fox's own time: spread over the clip so that no two move alike.
const offset = (k, duration) => (k * 0.6180339887 * duration) % duration;
const columns = Math.ceil(Math.sqrt(n));

const arbor = await createArbor();
const base = await ArborThree.load(arbor, src, { THREE, GLTFLoader });
const clip = base.play(clipName);
base.update(0);
const size = new THREE.Box3().setFromObject(base.object).getSize(new THREE.Vector3());
const spacing = 1.3 * Math.max(size.x, size.z, 1e-3);
const place = (k) => [((k % columns) - (columns - 1) / 2) * spacing, 0, (Math.floor(k / columns) - (columns - 1) / 2) * spacing];

// Per Fox: { object, time(), skinned (its skinned meshes) }
const foxes = [];
let crowd = null; // driver arbor: every Fox a copy in one arbor scene, one call into the module a frame
if (driver === 'arbor') {
  crowd = base.crowd(n);
  crowd.play(clipName);
  const m = new THREE.Matrix4();
  for (let k = 0; k < n; k++) {
    crowd.setMatrixAt(k, m.makeTranslation(...place(k)));
    crowd.times[k] = offset(k, clip.duration);
    foxes.push({ object: crowd.object.children[k], time: () => crowd.times[k] });
  }
  crowd.update(0);
  world.add(crowd.object);
} else {
  const gltf = await new GLTFLoader().loadAsync(src);
  const anim = gltf.animations.find((a) => a.name === clipName);
  base.dispose();
  for (let k = 0; k < n; k++) {
    const object = SkeletonUtils.clone(gltf.scene);
    object.position.set(...place(k));
    const mixer = new THREE.AnimationMixer(object);
    mixer.clipAction(anim).play();
    mixer.setTime(offset(k, clip.duration));
    world.add(object);
    foxes.push({ object, mixer, time: () => mixer.time });
  }
}
const skeletons = [];
for (const f of foxes) {
  f.skinned = [];
  f.object.traverse((o) => { if (o.isSkinnedMesh) f.skinned.push(o); });
  for (const m of f.skinned) {
    m.frustumCulled = false;
    if (driver === 'three' && !skeletons.includes(m.skeleton)) skeletons.push(m.skeleton);
  }
}
// three.js's renderer calls Skeleton.update for every skinned mesh it draws: the three driver
// calls it inside the timed update instead, so drawing only uploads
const skeletonUpdate = THREE.Skeleton.prototype.update;
for (const s of skeletons) s.update = function update() { if (this.boneTexture) this.boneTexture.needsUpdate = true; };

// One frame's update, timed: animation, hierarchy and skin of every Fox.
function updateAll(dt) {
  const t0 = performance.now();
  if (driver === 'arbor') {
    crowd.update(dt);
  } else {
    for (const f of foxes) f.mixer.update(dt);
    world.updateMatrixWorld();
    for (const s of skeletons) skeletonUpdate.call(s);
  }
  return performance.now() - t0;
}

const times = [];
let paused = false, last = performance.now();
function median() {
  const s = [...times].sort((a, b) => a - b), m = s.length >> 1;
  return s.length ? (s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2) : NaN;
}

function frameCamera() {
  const r = (columns * spacing) / 2 + spacing;
  camera.position.set(0, r * 0.9, r * 1.6);
  camera.near = r / 200;
  camera.far = r * 20;
  controls.target.set(0, size.y * 0.3, 0);
  controls.update();
}
frameCamera();

function frame(now) {
  const w = canvas.clientWidth || 1, h = canvas.clientHeight || 1;
  if (canvas.width !== w || canvas.height !== h) {
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
  }
  const dt = paused ? 0 : Math.min((now - last) / 1000, 0.1);
  last = now;
  const ms = updateAll(dt);
  if (!paused) {
    times.push(ms);
    if (times.length > 200) times.shift();
  }
  renderer.render(world, camera);
  const other = driver === 'arbor' ? 'three' : 'arbor';
  $('stats').textContent = `${n} Foxes (${clipName}), driven by ${driver === 'arbor' ? 'arbor (WebAssembly) through the bridge' : "three.js's AnimationMixer"}\n` +
    `update ${median().toFixed(2)} ms a frame (median of ${times.length}; drawing excluded)\n`;
  $('links').innerHTML = `<a href="?n=${n}&driver=${other}">drive with ${other}</a>  <a href="index.html">viewer</a>`;
}
renderer.setAnimationLoop(frame);

window.crowd = {
  /** { driver, n, updateMs }: updateMs the median update time of the last 200 frames. */
  stats: () => ({ driver, n, updateMs: median(), frames: times.length }),
  /** Updates, timed, without drawing: the median of `frames` updates of dt seconds each (ms). */
  measure(frames = 200, dt = 1 / 60) {
    const t = [];
    for (let k = 0; k < frames; k++) t.push(updateAll(dt));
    t.sort((a, b) => a - b);
    return t[t.length >> 1];
  },
  pause() { paused = true; },
  /** Fox k's clip time and every joint matrix J = W_mesh^-1 * W_joint * IBM of its skin (16 per
      joint): the bridge's for arbor; for three.js, Skeleton.update's product in the mesh's frame
      (taken before its float32 store, whose rounding at the Fox's place in the grid would hide
      what is compared). */
  joints(k) {
    const f = foxes[k], mesh = f.skinned[0];
    updateAll(0);
    const out = [];
    const m = new THREE.Matrix4(), inv = mesh.matrixWorld.clone().invert(), s = mesh.skeleton;
    for (let j = 0; j < s.bones.length; j++) {
      if (driver === 'arbor') m.fromArray(s.boneMatrices, 16 * j); // arbor's J, as the bridge wrote it
      else m.multiplyMatrices(s.bones[j].matrixWorld, s.boneInverses[j]).premultiply(inv); // Skeleton.update's, in doubles
      out.push(...m.elements);
    }
    return { time: f.time() % clip.duration, joints: out };
  },
  get count() { return foxes.length; },
  foxes,
  /** The crowd's bridge (driver arbor), or null. */
  bridge: crowd,
};
document.body.dataset.ready = 'true';
