// SPDX-License-Identifier: MIT
// three.js peer: an Object3D per node (position, quaternion, scale), parents from the shape,
// every root under one Scene. The per-frame update is scene.updateMatrixWorld(), which
// recomposes every node's local matrix and world matrix (three.js has no dirty subtrees).
// Usage: node three.mjs --shape S [--frame F|all|memory] [--size N] [--length L] [--frames N] [--json]
import { Object3D, Scene } from 'three';
import { runPeer, nodeAt, packageVersion } from './workload.mjs';

const version = packageVersion('three');

const peer = {
  name: `three.js ${version}`,
  build(w) {
    const scene = new Scene();
    const nodes = new Array(w.count);
    for (let i = 0; i < w.count; i++) {
      const [parent, o] = nodeAt(w, i);
      const node = new Object3D();
      node.position.set(w.t[3 * o], w.t[3 * o + 1], w.t[3 * o + 2]);
      node.quaternion.set(w.r[4 * o], w.r[4 * o + 1], w.r[4 * o + 2], w.r[4 * o + 3]);
      node.scale.setScalar(w.s[o]);
      (parent >= 0 ? nodes[parent] : scene).add(node);
      nodes[i] = node;
    }
    scene.updateMatrixWorld();
    return { scene, nodes };
  },
  update(s) {
    s.scene.updateMatrixWorld();
  },
  setRotation(s, i, q, o) {
    s.nodes[i].quaternion.set(q[o], q[o + 1], q[o + 2], q[o + 3]);
  },
  setTranslation(s, i, x, y, z) {
    s.nodes[i].position.set(x, y, z);
  },
  world(s, i) {
    return s.nodes[i].matrixWorld.elements;
  },
  dispose(s) {
    if (s) s.nodes.length = 0;
  },
};

runPeer(peer, process.argv);
