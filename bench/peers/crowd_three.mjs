// SPDX-License-Identifier: MIT
// The crowd benchmark (issue 6) in three.js: the same crowd as bench/crowd/crowd.c (see there),
// built from the same data: copies of a glTF character (Fox.glb: its nodes, skin and first
// animation, read from the GLB here) or of the 59-bone skeleton of WORKLOADS.md with its drawn
// clip. Each copy is an Object3D tree (Bones for the joints) with its own AnimationMixer playing
// one shared AnimationClip; a frame is mixer.update(1/30) for every copy, scene.updateMatrixWorld()
// and skeleton.update() for every copy. Figure: ns per joint per frame, median.
// Usage: node crowd_three.mjs fox FILE | skeleton [--instances N] [--frames F]
import { readFileSync } from 'node:fs';
import {
  AnimationClip, AnimationMixer, Bone, LoopRepeat, Matrix4, Object3D, PropertyBinding, QuaternionKeyframeTrack,
  Scene, Skeleton, VectorKeyframeTrack,
} from 'three';
import { SplitMix64, drawNode, makeShape, packageVersion } from './workload.mjs';

const WARMUP = 2;
const KEYS = 30;

// ---- Fox.glb: nodes, skin 0, animation 0 -----------------------------------------------------
function readGlb(path) {
  const b = readFileSync(path);
  const jsonLength = b.readUInt32LE(12);
  const json = JSON.parse(b.subarray(20, 20 + jsonLength).toString('utf8'));
  const binStart = 20 + jsonLength;
  const bin = b.subarray(binStart + 8, binStart + 8 + b.readUInt32LE(binStart));
  const floats = (index) => { // a float accessor, tightly packed
    const a = json.accessors[index], v = json.bufferViews[a.bufferView];
    const n = { SCALAR: 1, VEC3: 3, VEC4: 4, MAT4: 16 }[a.type] * a.count;
    const offset = bin.byteOffset + (v.byteOffset || 0) + (a.byteOffset || 0);
    return new Float32Array(bin.buffer.slice(offset, offset + 4 * n));
  };
  return { json, floats };
}

function foxTemplate(path) {
  const { json, floats } = readGlb(path);
  const skin = json.skins[0];
  const names = json.nodes.map((n, i) => PropertyBinding.sanitizeNodeName(n.name || `node${i}`));
  const anim = json.animations[0];
  const tracks = anim.channels.map((c) => {
    const s = anim.samplers[c.sampler];
    const name = `${names[c.target.node]}.${{ translation: 'position', rotation: 'quaternion', scale: 'scale' }[c.target.path]}`;
    const Track = c.target.path === 'rotation' ? QuaternionKeyframeTrack : VectorKeyframeTrack;
    return new Track(name, floats(s.input), floats(s.output));
  });
  const ibm = floats(skin.inverseBindMatrices);
  return {
    nodes: json.nodes.map((n, i) => ({
      name: names[i], t: n.translation, r: n.rotation, s: n.scale, children: n.children || [],
      joint: skin.joints.includes(i),
    })),
    roots: json.scenes[json.scene || 0].nodes,
    joints: skin.joints,
    inverses: skin.joints.map((_, j) => new Matrix4().fromArray(ibm, 16 * j)),
    clip: new AnimationClip(anim.name, -1, tracks),
  };
}

// ---- the skeleton of WORKLOADS.md and its drawn clip -------------------------------------------
function skeletonTemplate() {
  const shape = makeShape('skeletons', 1);
  const g = new SplitMix64();
  const bones = 59, t = new Float64Array(3 * bones), r = new Float64Array(4 * bones), s = new Float64Array(bones);
  const parent = [];
  for (let i = 0; i < bones; i++) parent.push(drawNode(g, shape, i, t, r, s));
  const times = Float32Array.from({ length: KEYS }, (_, k) => k / (KEYS - 1));
  const tracks = [];
  for (let b = 0; b < bones; b++) {
    const values = new Float64Array(4 * KEYS);
    for (let k = 0; k < KEYS; k++) g.quat(values, 4 * k);
    tracks.push(new QuaternionKeyframeTrack(`bone${b}.quaternion`, times, Float32Array.from(values)));
  }
  const nodes = [];
  for (let i = 0; i < bones; i++) {
    nodes.push({ name: `bone${i}`, t: [...t.subarray(3 * i, 3 * i + 3)], r: [...r.subarray(4 * i, 4 * i + 4)],
      s: [s[i], s[i], s[i]], children: [], joint: true });
    if (parent[i] >= 0) nodes[parent[i]].children.push(i);
  }
  return { nodes, roots: [0], joints: nodes.map((_, i) => i), inverses: null,
    clip: new AnimationClip('skeleton', -1, tracks) };
}

// ---- one copy ----------------------------------------------------------------------------------
function instantiate(template, scene) {
  const objects = template.nodes.map((n) => {
    const o = n.joint ? new Bone() : new Object3D();
    o.name = n.name;
    if (n.t) o.position.fromArray(n.t);
    if (n.r) o.quaternion.fromArray(n.r);
    if (n.s) o.scale.fromArray(n.s);
    return o;
  });
  template.nodes.forEach((n, i) => n.children.forEach((c) => objects[i].add(objects[c])));
  const root = new Object3D();
  template.roots.forEach((r) => root.add(objects[r]));
  scene.add(root);
  return { root, bones: template.joints.map((j) => objects[j]) };
}

function main(argv) {
  const kind = argv[2];
  if (kind !== 'fox' && kind !== 'skeleton') {
    console.error('usage: node crowd_three.mjs fox FILE | skeleton [--instances N] [--frames F]');
    process.exit(2);
  }
  let instances = 1000, frames = 101;
  for (let i = kind === 'fox' ? 4 : 3; i + 1 < argv.length; i += 2) {
    if (argv[i] === '--instances') instances = Number(argv[i + 1]);
    if (argv[i] === '--frames') frames = Number(argv[i + 1]);
  }
  const template = kind === 'fox' ? foxTemplate(argv[3]) : skeletonTemplate();
  const scene = new Scene();
  const copies = [];
  for (let k = 0; k < instances; k++) copies.push(instantiate(template, scene));
  scene.updateMatrixWorld();
  const duration = template.clip.duration;
  for (let k = 0; k < instances; k++) {
    const c = copies[k];
    c.skeleton = new Skeleton(c.bones, template.inverses || undefined); // none: the inverses of this pose
    c.mixer = new AnimationMixer(c.root);
    c.mixer.clipAction(template.clip).setLoop(LoopRepeat, Infinity).play();
    // frame f shows time start + f / 30, as in crowd.c: begin one step before the start
    c.mixer.setTime(((k * 0.618034) % duration) - 1 / 30 + duration);
  }
  const joints = instances * template.joints.length;
  const elapsed = [];
  for (let f = 0; f < WARMUP + frames; f++) {
    const t0 = performance.now();
    for (const c of copies) c.mixer.update(1 / 30);
    scene.updateMatrixWorld();
    for (const c of copies) c.skeleton.update();
    elapsed.push(performance.now() - t0);
  }
  let checksum = 0;
  for (const c of copies) for (let j = 0; j < c.bones.length; j++) checksum += c.skeleton.boneMatrices[16 * j + 12];
  const timed = elapsed.slice(WARMUP).sort((a, b) => a - b);
  const median = timed.length % 2 ? timed[timed.length >> 1] : (timed[timed.length / 2 - 1] + timed[timed.length / 2]) / 2;
  const scale = 1e6 / joints;
  console.log(JSON.stringify({
    peer: `three.js ${packageVersion('three')}`, workload: kind, instances, joints, metric: 'crowd',
    value: +(median * scale).toPrecision(4), unit: 'ns/joint', min: +(timed[0] * scale).toPrecision(4), frames,
    checksum: +checksum.toPrecision(6),
  }));
}

main(process.argv);
