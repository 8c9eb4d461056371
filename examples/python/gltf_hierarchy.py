#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints a glTF file's hierarchy with every node's world position.

    examples/python/gltf_hierarchy.py [FILE]      (default: examples/robot_arm.gltf)

Each line is a node, indented by its depth, parents before children, with its index in the
file, what it carries and where its origin is in the world.
"""
import os
import sys

import arbor


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    path = argv[1] if len(argv) > 1 else os.path.join(here, "..", "robot_arm.gltf")
    try:
        scene = arbor.load(path)
    except arbor.Error as e:
        print(f"gltf_hierarchy.py: {e}", file=sys.stderr)
        return 1
    with scene:
        index = {node: i for i, node in enumerate(scene.file_nodes)}
        worlds = scene.world_matrices()             # every node at once, in iteration order
        print(f"{os.path.basename(path)}: {len(scene)} nodes, {len(scene.roots)} roots")
        for node, world in zip(scene, worlds):
            carries = []
            if node.mesh is not None:
                carries.append(f"mesh {node.mesh}")
            if node.camera is not None:
                carries.append(f"camera {node.camera.type}")
            x, y, z = world[:3, 3]
            name = node.name if node.name is not None else "(unnamed)"
            extra = f"  [{', '.join(carries)}]" if carries else ""
            print(f"{'  ' * node.depth}#{index.get(node, '-')} {name}{extra}  at ({x:.6g}, {y:.6g}, {z:.6g})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
