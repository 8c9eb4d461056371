// SPDX-License-Identifier: MIT
// Babylon.js peer: a TransformNode per node (position, rotationQuaternion, scaling) in a Scene of
// a NullEngine, parents from the shape. The per-frame update is what Babylon's own frame does for
// its meshes: a new render id, then computeWorldMatrix() on every node in creation order
// (parents first); a node whose TRS and parent are unchanged keeps its cached matrix after
// checking its ancestors (isSynchronized).
// Usage: node babylon.mjs --shape S [--frame F|all|memory] [--size N] [--length L] [--frames N] [--json]
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { Scene } from '@babylonjs/core/scene.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Quaternion } from '@babylonjs/core/Maths/math.vector.js';
import { runPeer, nodeAt, packageVersion } from './workload.mjs';

const peer = {
  name: `Babylon.js ${packageVersion('@babylonjs/core')}`,
  build(w) {
    const engine = new NullEngine();
    const scene = new Scene(engine);
    const nodes = new Array(w.count);
    for (let i = 0; i < w.count; i++) {
      const [parent, o] = nodeAt(w, i);
      const node = new TransformNode('', scene);
      node.position.copyFromFloats(w.t[3 * o], w.t[3 * o + 1], w.t[3 * o + 2]);
      node.rotationQuaternion = new Quaternion(w.r[4 * o], w.r[4 * o + 1], w.r[4 * o + 2], w.r[4 * o + 3]);
      node.scaling.copyFromFloats(w.s[o], w.s[o], w.s[o]);
      if (parent >= 0) node.parent = nodes[parent];
      nodes[i] = node;
    }
    const s = { engine, scene, nodes };
    peer.update(s);
    return s;
  },
  update(s) {
    s.scene.incrementRenderId();
    const nodes = s.nodes;
    for (let i = 0; i < nodes.length; i++) nodes[i].computeWorldMatrix();
  },
  setRotation(s, i, q, o) {
    s.nodes[i].rotationQuaternion.copyFromFloats(q[o], q[o + 1], q[o + 2], q[o + 3]);
  },
  setTranslation(s, i, x, y, z) {
    s.nodes[i].position.copyFromFloats(x, y, z);
  },
  world(s, i) {
    return s.nodes[i].getWorldMatrix().m;
  },
  dispose(s) {
    if (!s) return;
    s.scene.dispose();
    s.engine.dispose();
    s.nodes.length = 0;
  },
};

runPeer(peer, process.argv);
