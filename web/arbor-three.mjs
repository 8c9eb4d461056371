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

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

// out[o..o+15] = a * b[i..i+15] (4x4, column-major).
function multiply(a, b, i, out, o) {
  for (let c = 0; c < 4; c++) {
    const x = b[i + 4 * c], y = b[i + 4 * c + 1], z = b[i + 4 * c + 2], w = b[i + 4 * c + 3];
    for (let r = 0; r < 4; r++) out[o + 4 * c + r] = a[r] * x + a[4 + r] * y + a[8 + r] * z + a[12 + r] * w;
  }
}

// True for a 4x4 identity (column-major elements).
function isIdentity(m) {
  for (let k = 0; k < 16; k++) if (m[k] !== (k % 5 === 0 ? 1 : 0)) return false;
  return true;
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

  constructor(THREE, scene, gltf, source, crowd = null) {
    this.THREE = THREE;
    /** The arbor Scene (the file's nodes in file order; for a crowd, its copies). */
    this.scene = scene;
    /** GLTFLoader's result (animations, cameras, userData, parser). */
    this.gltf = gltf;
    /** The file's default scene as three.js objects: add it to yours. */
    this.object = gltf.scene || new THREE.Group(); // a file without scenes draws nothing
    /** How many copies of the file this bridge drives (1, or a crowd's count). */
    this.count = crowd ? crowd.count : 1;
    /** Each copy's animation time in seconds (a crowd's copies each have their own). */
    this.times = new Float64Array(this.count);
    this.playing = false;
    this.loop = true;
    this._source = source;
    this._crowd = crowd;  // { template (the Scene the copies and clips come from), base, per, groups }
    this._players = [];
    this._structure = -1;
    this._aliased = null; // the module's memory and layout the objects' matrices are views of
    this._local = new Float32Array(16 * this.count); // each copy's matrix (setMatrixAt)
    for (let k = 0; k < this.count; k++) this._local.set(IDENTITY, 16 * k);
    this._copiesPlaced = false; // a copy's matrix is not the identity
    this._rootPlaced = false;   // this.object's world matrix is not the identity
    const nodeOfObject = new Map();
    for (const [obj, assoc] of gltf.parser.associations) {
      if (obj.isObject3D && assoc && assoc.nodes !== undefined) nodeOfObject.set(obj, assoc.nodes);
    }
    this._bind(nodeOfObject);
  }

  /** The animation time in seconds (a crowd: its first copy's; setting it sets every copy's). */
  get time() { return this.times[0]; }
  set time(t) { this.times.fill(t); }

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
    const seen = new Set(), bridge = this, groups = this._crowd ? this._crowd.groups : [];
    this.object.traverse((obj) => {
      if (obj === this.object) return;
      obj.matrixAutoUpdate = false;
      obj.matrixWorldAutoUpdate = false;
      obj.updateMatrix();
      const i = nodeOfObject.get(obj);
      if (groups.includes(obj)) { // a crowd's copy: its world matrix is its block's placement
      } else if (i !== undefined && i < this.scene.nodeCount) {
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
          // arbor writes the joint matrices (a view of them, or a copy: _alias); three.js uploads them
          obj.skeleton.update = function update() {
            if (this._arborCopy) this.boneMatrices.set(bridge.scene.skinMatrices().subarray(this._arborCopy[0], this._arborCopy[1]));
            if (this.boneTexture) this.boneTexture.needsUpdate = true;
          };
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
    // each copy (the whole file for a bridge that is no crowd) placed outside the arbor scene
    const { base = 0, per = this.scene.nodeCount } = this._crowd || {};
    this._views = this.scene.placement(base, per, this.count);
    this.update(0);
  }

  // Points the three.js objects at arbor's matrices: each node object's matrixWorld.elements
  // becomes the view of its node's 16 floats in the module's memory, and each skeleton's
  // boneMatrices (and bone texture, one row of 4 texels a joint) the view of its joint matrices,
  // so a frame copies nothing; an object below a node object with an identity local shares its
  // parent's, a crowd's copy object views its placement. The node objects view arbor's world
  // matrices (world), or, when a placement is in use (this.object or a copy placed), the placed
  // ones (Scene.placement: the copy's matrix times arbor's world, multiplied in the module).
  // Called again whenever the views would be stale: the module's memory grew (its buffer
  // changes), the scene's arrays moved (Scene.layout), or the placement came into or out of use.
  _alias(world, placing) {
    const scene = this.scene, THREE = this.THREE;
    this._aliased = { buffer: world.buffer, offset: world.byteOffset, layout: scene.layout, placing };
    this._views = scene.placementViews();
    const from = placing ? this._views.placed : world;
    for (const [obj, i] of this._objects) obj.matrixWorld.elements = from.subarray(16 * i, 16 * i + 16);
    const groups = this._crowd ? this._crowd.groups : [];
    groups.forEach((obj, k) => { obj.matrixWorld.elements = this._views.matrices.subarray(16 * k, 16 * k + 16); });
    this._computed = [];
    for (const obj of this._derived) {
      if (obj.parent !== this.object && !this._computed.includes(obj.parent) && isIdentity(obj.matrix.elements)) {
        obj.matrixWorld.elements = obj.parent.matrixWorld.elements;
      } else {
        if (obj.matrixWorld.elements instanceof Float32Array) obj.matrixWorld.elements = new THREE.Matrix4().elements;
        this._computed.push(obj);
      }
    }
    if (!this._skinned.length) return;
    const joints = scene.skinMatrices();
    for (const [skeleton, first, count] of this._skinned) {
      const view = joints.subarray(16 * first, 16 * (first + count)), width = 4 * count;
      if (width > 2048) { // wider than WebGL2 promises a texture: three.js's own square one, copied into
        skeleton._arborCopy = [16 * first, 16 * (first + count)];
        continue;
      }
      skeleton.boneMatrices = view;
      if (skeleton.boneTexture && skeleton.boneTexture.image.width === width) skeleton.boneTexture.image.data = view;
      else {
        if (skeleton.boneTexture) skeleton.boneTexture.dispose();
        skeleton.boneTexture = new THREE.DataTexture(view, width, 1, THREE.RGBAFormat, THREE.FloatType);
      }
      skeleton.boneTexture.needsUpdate = true;
    }
  }

  // The copies' placements for the module: this.object's world matrix (rm) times each copy's.
  _writePlacements(rm) {
    let m = this._views.matrices;
    if (m.length === 0) m = (this._views = this.scene.placementViews()).matrices; // the module's memory grew
    if (!this._crowd) m.set(rm);
    else if (!this._rootPlaced) m.set(this._local);
    else for (let k = 0; k < this.count; k++) multiply(rm, this._local, 16 * k, m, 16 * k);
  }

  /**
   * A crowd's copy k placed by a matrix (a THREE.Matrix4, or 16 numbers column-major), as
   * InstancedMesh.setMatrixAt places an instance: the copy's object's local matrix, below
   * this.object. The placement stays outside the arbor scene (whose copies keep the file's
   * frame, so that their matrices are as exact as the file's own wherever they stand): the
   * module multiplies it in, and the copy's objects show it at the next update().
   */
  setMatrixAt(k, matrix) {
    if (!this._crowd) throw new Error('setMatrixAt: this bridge is no crowd (its object\'s transform places it)');
    if (!(Number.isInteger(k) && k >= 0 && k < this.count)) throw new Error(`copy ${k} is out of range (${this.count} copies)`);
    const e = matrix.elements || matrix;
    this._local.set(e, 16 * k);
    this._crowd.groups[k].matrix.fromArray(e);
    if (!isIdentity(e)) this._copiesPlaced = true;
    if (!this._rootPlaced) this._writePlacements(null);
  }

  /** Copy k's matrix (setMatrixAt) into target (a THREE.Matrix4); returns it. */
  getMatrixAt(k, target) { return target.fromArray(this._local, 16 * k); }

  /** Plays the animation of that name (or index) from time 0 (looping unless loop is false);
      a crowd's copies all play it, each from its time 0. */
  play(name, { loop = true } = {}) {
    const clips = (this._crowd ? this._crowd.template : this.scene).clips;
    const clip = clips.find((c) => c.name === name) || (typeof name === 'number' && clips[name]);
    if (!clip) throw new Error(`no animation ${JSON.stringify(name)} in this file`);
    for (const p of this._players) p.dispose();
    this._players = [];
    const { base = 0, per = 0 } = this._crowd || {};
    for (let k = 0; k < this.count; k++) this._players.push(this.scene.player(clip, base + k * per));
    this.clip = clip;
    this.times.fill(0);
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
    const times = this.times, scene = this.scene;
    if (this.playing && this._players.length && dt) for (let k = 0; k < times.length; k++) times[k] += dt;
    const root = this.object;
    root.updateWorldMatrix(true, false);
    const rm = root.matrixWorld.elements, rootPlaced = !isIdentity(rm);
    if (rootPlaced || rootPlaced !== this._rootPlaced) {
      this._rootPlaced = rootPlaced;
      this._writePlacements(rm);
    }
    const placing = rootPlaced || this._copiesPlaced;
    const world = scene.frame(this._players, times, this.loop, placing); // one call into the module
    const a = this._aliased;
    if (!a || a.buffer !== world.buffer || a.offset !== world.byteOffset || a.layout !== scene.layout || a.placing !== placing) {
      this._alias(world, placing);
    }
    for (const obj of this._computed) obj.matrixWorld.multiplyMatrices(obj.parent.matrixWorld, obj.matrix);
    for (const cam of this._cameras) cam.matrixWorldInverse.copy(cam.matrixWorld).invert();
    if (scene.structureVersion !== this._structure) { // a node reparented, hidden or shown through arbor
      this._structure = scene.structureVersion;
      const objects = this._objects;
      for (const [obj, i] of objects) { // three.js's tree follows arbor's: its visibility is inherited
        const p = scene.node(i).parent, parent = (p && this._byNode.get(p.index)) || this._copyObject(i);
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

  // A copy of this.object's tree sharing its geometries, materials and textures, each skinned
  // mesh with a skeleton of the copy's bones; returns it and the map original -> copy.
  _copyObjects() {
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
    return { copy, map };
  }

  /**
   * Another copy of the file: its own arbor scene (read again from the same bytes) and its own
   * three.js objects sharing this one's geometries, materials and textures. For many copies,
   * crowd(count) drives them all in one call.
   */
  clone() {
    const { arbor, bytes, resources } = this._source;
    const scene = arbor.loadGltf(bytes, { resources });
    const { copy, map } = this._copyObjects();
    const associations = new Map();
    for (const [obj, i] of this._objects) associations.set(map.get(obj), { nodes: i });
    return new ArborThree(this.THREE, scene, { ...this.gltf, scene: copy, scenes: [copy], parser: { associations } }, this._source);
  }

  /**
   * `count` copies of the file in one arbor scene, driven in one call into the module a frame:
   * a bridge whose object holds the copies' three.js objects (object.children[k], sharing this
   * bridge's geometries, materials and textures) and whose scene holds copy k's nodes in file
   * order (copyNode(k, i) is node k * nodeCount + i). setMatrixAt(k, matrix) places copy k;
   * play() plays the clip on every copy; times[k] is copy k's time. This bridge must outlive
   * the crowd (its three.js resources are shared).
   */
  crowd(count) {
    if (!(Number.isInteger(count) && count >= 1)) throw new Error(`crowd: count ${count} is not a positive integer`);
    const { arbor, bytes, resources } = this._source;
    const template = arbor.loadGltf(bytes, { resources });
    const scene = arbor.createScene();
    try {
      const per = template.nodeCount, base = scene.addCopies(template, new Array(count).fill(null));
      const group = new this.THREE.Group(), associations = new Map(), groups = [];
      for (let k = 0; k < count; k++) {
        const { copy, map } = this._copyObjects();
        copy.name = `copy ${k}`;
        copy.matrix.identity();
        for (const [obj, i] of this._objects) associations.set(map.get(obj), { nodes: base + k * per + i });
        group.add(copy);
        groups.push(copy);
      }
      return new ArborThree(this.THREE, scene, { ...this.gltf, scene: group, scenes: [group], parser: { associations } },
        this._source, { template, count, base, per, groups });
    } catch (e) {
      scene.dispose();
      template.dispose();
      throw e;
    }
  }

  // The three.js object of the copy that node index i belongs to (this.object for a bridge that is no crowd).
  _copyObject(i) {
    if (!this._crowd) return this.object;
    const { base, per, groups } = this._crowd;
    return groups[Math.min(Math.max(Math.floor((i - base) / per), 0), groups.length - 1)];
  }

  /** Copy k's node i of the file (a crowd's; for a bridge that is no crowd, k is 0 and this is node i). */
  copyNode(k, i) {
    if (!(Number.isInteger(k) && k >= 0 && k < this.count)) throw new Error(`copy ${k} is out of range (${this.count} copies)`);
    const { base = 0, per = this.scene.nodeCount } = this._crowd || {};
    if (!(Number.isInteger(i) && i >= 0 && i < per)) throw new Error(`node index ${i} is out of range (the file has ${per} nodes)`);
    return this.scene.node(base + k * per + i);
  }

  /** Frees the arbor scene and the three.js objects' geometries, materials and textures (a clone
      or crowd frees only its scenes: its resources are its original's). */
  dispose() {
    for (const p of this._players) p.dispose();
    this._players = [];
    this.scene.dispose();
    if (this._crowd) this._crowd.template.dispose();
    if (this.object.parent) this.object.parent.remove(this.object);
    const own = !!this.gltf.parser.json, done = new Set();
    const free = (r) => { if (r && r.dispose && !done.has(r)) { done.add(r); r.dispose(); } };
    this.object.traverse((obj) => {
      if (obj.skeleton) free(obj.skeleton); // every copy's own (and its bone texture)
      if (!own) return;
      free(obj.geometry);
      for (const m of [].concat(obj.material || [])) {
        for (const v of Object.values(m)) if (v && v.isTexture) free(v);
        free(m);
      }
    });
  }
}
