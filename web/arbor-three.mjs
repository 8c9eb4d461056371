// SPDX-License-Identifier: MIT
// three.js draws, arbor moves it: one glTF file read twice from the same bytes, by three.js's
// GLTFLoader (meshes, materials, textures, lights) and by arbor (hierarchy, animations, skins).
// Every update() arbor poses and updates the scene in one call into the WebAssembly module, then
// its world matrices are written into the three.js objects (whose own matrix updates are switched
// off) and its joint matrices into their skeletons, so three.js draws arbor's pose.
//
//   import * as THREE from 'three';
//   import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
//   import { createArbor } from './arbor.mjs';
//   import { ArborThree } from './arbor-three.mjs';
//   const bridge = await ArborThree.load(await createArbor(), 'Fox.glb', { THREE, GLTFLoader });
//   threeScene.add(bridge.object);
//   bridge.play('Run');
//   renderer.setAnimationLoop((ms) => { bridge.update(ms / 1000 - last); ...; renderer.render(threeScene, camera); });
//
// Types: arbor-three.d.ts. three.js is the caller's (a peer dependency): this module imports none.

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;

async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

function isGlb(bytes) {
  return bytes.length >= 12 && bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46;
}

// The relative URIs of a .gltf's external buffers and images (null when the text is not JSON:
// arbor's load then says what is wrong with it).
function externalUris(bytes) {
  if (isGlb(bytes)) return [];
  let json;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
  return [...(json?.buffers || []), ...(json?.images || [])].map((b) => b && b.uri)
    .filter((u) => typeof u === 'string' && !u.startsWith('data:') && !ABSOLUTE.test(u));
}

export class ArborThree {
  /**
   * Fetches a .glb or .gltf (with its external files) and reads it with arbor and three.js.
   * options: { THREE, GLTFLoader } (the caller's three.js), and optionally loader (a configured
   * GLTFLoader instance, e.g. with a DRACOLoader). Throws arbor's message for a file arbor refuses.
   */
  static async load(arbor, url, options) {
    const abs = new URL(url, globalThis.location?.href);
    const bytes = await fetchBytes(abs);
    const resources = {};
    const uris = externalUris(bytes) || [];
    await Promise.all(uris.map(async (u) => { resources[decodeURIComponent(u)] = await fetchBytes(new URL(u, abs)); }));
    return ArborThree.fromBytes(arbor, bytes, { ...options, resources, path: new URL('.', abs).href });
  }

  /**
   * The same from bytes in memory: options.resources holds a .gltf's external files by relative
   * URI ({ 'scene.bin': Uint8Array }), options.path the base URL for any others.
   */
  static async fromBytes(arbor, bytes, options) {
    const { THREE, GLTFLoader, resources = {}, path = '' } = options || {};
    if (!THREE || !(GLTFLoader || options.loader)) throw new Error('ArborThree: options need THREE and GLTFLoader');
    const scene = arbor.loadGltf(bytes, { resources }); // first: a file arbor refuses gives arbor's message
    const blobs = [];
    try {
      const manager = new THREE.LoadingManager();
      manager.setURLModifier((u) => {
        const rel = u.startsWith(path) ? u.slice(path.length) : u;
        const key = [rel, decodeURIComponent(rel)].find((k) => resources[k]);
        if (!key) return u;
        const blob = URL.createObjectURL(new Blob([resources[key]]));
        blobs.push(blob);
        return blob;
      });
      const loader = options.loader || new GLTFLoader(manager);
      if (options.loader) options.loader.manager = manager;
      const copy = bytes.slice().buffer; // GLTFLoader keeps views of it
      const gltf = await loader.parseAsync(copy, path);
      return new ArborThree(THREE, scene, gltf, { arbor, bytes, resources });
    } catch (e) {
      scene.dispose();
      throw e;
    } finally {
      for (const b of blobs) URL.revokeObjectURL(b);
    }
  }

  constructor(THREE, scene, gltf, source) {
    this.THREE = THREE;
    /** The arbor Scene (the file's nodes in file order). */
    this.scene = scene;
    /** GLTFLoader's result (animations, cameras, userData, parser). */
    this.gltf = gltf;
    /** The file's default scene as three.js objects: add it to yours. */
    this.object = gltf.scene || new THREE.Group(); // a file without scenes draws nothing
    this.time = 0;
    this.playing = false;
    this.loop = true;
    this._source = source;
    this._player = null;
    this._structure = -1;
    const nodeOfObject = new Map();
    for (const [obj, assoc] of gltf.parser.associations) {
      if (obj.isObject3D && assoc && assoc.nodes !== undefined) nodeOfObject.set(obj, assoc.nodes);
    }
    this._bind(nodeOfObject);
  }

  // Lists the objects arbor drives (node objects, by node index), the others under them (whose
  // world follows their parent's), the cameras and the skinned meshes, and switches off three.js's
  // own matrix updates below this.object.
  _bind(nodeOfObject) {
    const skins = new Map(this.scene.skins.map((k) => [k.mesh.index, k]));
    this._objects = [];   // [object, node index]
    this._derived = [];   // objects below a node object that are not nodes themselves
    this._cameras = [];
    this._skinned = [];   // [skeleton, first joint, count]
    this._byNode = new Map();
    this._nodeOf = new Map();
    const seen = new Set();
    this.object.traverse((obj) => {
      if (obj === this.object) return;
      obj.matrixAutoUpdate = false;
      obj.matrixWorldAutoUpdate = false;
      obj.updateMatrix();
      const i = nodeOfObject.get(obj);
      if (i !== undefined && i < this.scene.nodeCount) {
        this._objects.push([obj, i]);
        this._byNode.set(i, obj);
        this._nodeOf.set(obj, i);
      } else {
        this._derived.push(obj);
      }
      if (obj.isCamera) this._cameras.push(obj);
      if (obj.isSkinnedMesh && !seen.has(obj.skeleton)) {
        let n = obj;
        while (n && !this._nodeOf.has(n)) n = n.parent;
        const skin = n && skins.get(this._nodeOf.get(n));
        if (skin && skin.count === obj.skeleton.bones.length) {
          seen.add(obj.skeleton);
          // arbor writes the joint matrices; three.js only uploads them
          obj.skeleton.update = function update() { if (this.boneTexture) this.boneTexture.needsUpdate = true; };
          this._skinned.push([obj.skeleton, skin.first, skin.count]);
        }
      }
      if (obj.isSkinnedMesh && seen.has(obj.skeleton)) {
        // arbor's J = W_mesh^-1 * W_joint * IBM is in the mesh's frame, which its world matrix
        // then places: bind matrices of identity, 'detached' ('attached' would take the mesh's
        // world matrix out a second time)
        obj.bindMode = this.THREE.DetachedBindMode;
        obj.bindMatrix.identity();
        obj.bindMatrixInverse.identity();
      }
      // a skinned mesh's box moves with its joints: three.js's bounds would cull it wrongly
      if (obj.isSkinnedMesh) obj.frustumCulled = false;
    });
    this.update(0);
  }

  /** Plays the animation of that name (or index) from time 0 (looping unless loop is false). */
  play(name, { loop = true } = {}) {
    const clip = this.scene.clips.find((c) => c.name === name) || (typeof name === 'number' && this.scene.clips[name]);
    if (!clip) throw new Error(`no animation ${JSON.stringify(name)} in this file`);
    if (this._player) this._player.dispose();
    this._player = this.scene.player(clip);
    this.clip = clip;
    this.time = 0;
    this.loop = loop;
    this.playing = true;
    return clip;
  }

  /** Stops advancing time (the pose stays; update() still shows edits). */
  pause() { this.playing = false; }

  /** Shows the animation at time t seconds (stays paused if paused). */
  seek(t) {
    this.time = t;
    this.update(0);
  }

  /**
   * Advances the animation by dt seconds (when playing), poses and updates the arbor scene, and
   * writes its world and joint matrices into the three.js objects. Call once a frame before
   * rendering.
   */
  update(dt = 0) {
    if (this.playing && this._player) this.time += dt;
    const scene = this.scene;
    const view = scene.frame(this._player, this.time, this.loop); // one call into the module
    // read from a copy: element reads of a view into the module's memory run slower
    if (!this._copy || this._copy.length !== view.length) this._copy = new Float32Array(view.length);
    const world = this._copy;
    world.set(view);
    const root = this.object;
    root.updateWorldMatrix(true, false);
    const rm = root.matrixWorld.elements;
    // affine (three.js's object transforms are): the last row is 0 0 0 1
    const placed = !(rm[0] === 1 && rm[5] === 1 && rm[10] === 1 && rm[15] === 1 && rm[1] === 0 && rm[2] === 0 &&
      rm[3] === 0 && rm[4] === 0 && rm[6] === 0 && rm[7] === 0 && rm[8] === 0 && rm[9] === 0 && rm[11] === 0 &&
      rm[12] === 0 && rm[13] === 0 && rm[14] === 0);
    const objects = this._objects;
    const r0 = rm[0], r1 = rm[1], r2 = rm[2], r4 = rm[4], r5 = rm[5], r6 = rm[6], r8 = rm[8], r9 = rm[9], r10 = rm[10];
    const r12 = rm[12], r13 = rm[13], r14 = rm[14];
    for (let k = 0; k < objects.length; k++) {
      const e = objects[k][0].matrixWorld.elements, o = 16 * objects[k][1];
      if (placed) { // this.object's (affine) matrix times arbor's, written out: Matrix4 calls cost more here
        for (let c = 0; c < 16; c += 4) {
          const x = world[o + c], y = world[o + c + 1], z = world[o + c + 2], w = world[o + c + 3];
          e[c] = r0 * x + r4 * y + r8 * z + r12 * w;
          e[c + 1] = r1 * x + r5 * y + r9 * z + r13 * w;
          e[c + 2] = r2 * x + r6 * y + r10 * z + r14 * w;
          e[c + 3] = w;
        }
      } else {
        for (let c = 0; c < 16; c++) e[c] = world[o + c];
      }
    }
    for (const obj of this._derived) obj.matrixWorld.multiplyMatrices(obj.parent.matrixWorld, obj.matrix);
    for (const cam of this._cameras) cam.matrixWorldInverse.copy(cam.matrixWorld).invert();
    if (this._skinned.length) {
      const joints = scene.skinMatrices();
      for (const [skeleton, first, count] of this._skinned) {
        skeleton.boneMatrices.set(joints.subarray(16 * first, 16 * (first + count)));
        if (skeleton.boneTexture) skeleton.boneTexture.needsUpdate = true;
      }
    }
    if (scene.structureVersion !== this._structure) { // a node reparented, hidden or shown through arbor
      this._structure = scene.structureVersion;
      for (const [obj, i] of objects) { // three.js's tree follows arbor's: its visibility is inherited
        const p = scene.node(i).parent, parent = (p && this._byNode.get(p.index)) || this.object;
        if (obj.parent !== parent) parent.add(obj);
      }
      const shown = scene.visibility();
      for (const [obj, i] of objects) obj.visible = shown[i] === 1;
    }
  }

  /** The three.js object of a node (a Node or its index), or null (a node outside the default scene). */
  objectOf(node) {
    return this._byNode.get(typeof node === 'number' ? node : node.index) || null;
  }

  /** The arbor Node of a three.js object, or null (an object that is not one of the file's nodes). */
  nodeOf(object) {
    const i = this._nodeOf.get(object);
    return i === undefined ? null : this.scene.node(i);
  }

  /**
   * Another copy of the file: its own arbor scene (read again from the same bytes) and its own
   * three.js objects sharing this one's geometries, materials and textures; for crowds.
   */
  clone() {
    const { arbor, bytes, resources } = this._source;
    const scene = arbor.loadGltf(bytes, { resources });
    const copy = this.object.clone(true);
    const map = new Map();
    const a = [this.object], b = [copy];
    while (a.length) { // the clone has the same shape: walk both at once
      const x = a.pop(), y = b.pop();
      map.set(x, y);
      a.push(...x.children);
      b.push(...y.children);
    }
    copy.traverse((obj) => {
      if (obj.isSkinnedMesh) {
        const s = obj.skeleton;
        obj.bind(new this.THREE.Skeleton(s.bones.map((bone) => map.get(bone)), s.boneInverses), obj.bindMatrix);
      }
    });
    const associations = new Map();
    for (const [obj, i] of this._objects) associations.set(map.get(obj), { nodes: i });
    return new ArborThree(this.THREE, scene, { ...this.gltf, scene: copy, scenes: [copy], parser: { associations } }, this._source);
  }

  /** Frees the arbor scene and the three.js objects' geometries, materials and textures (a clone
      frees only its scene: its resources are its original's). */
  dispose() {
    if (this._player) this._player.dispose();
    this._player = null;
    this.scene.dispose();
    if (this.object.parent) this.object.parent.remove(this.object);
    if (this.gltf.parser.json) {
      const done = new Set();
      const free = (r) => { if (r && r.dispose && !done.has(r)) { done.add(r); r.dispose(); } };
      this.object.traverse((obj) => {
        free(obj.geometry);
        for (const m of [].concat(obj.material || [])) {
          for (const v of Object.values(m)) if (v && v.isTexture) free(v);
          free(m);
        }
        if (obj.skeleton) free(obj.skeleton);
      });
    }
  }
}
