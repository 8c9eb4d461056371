// SPDX-License-Identifier: MIT
// bench/robots/robots.cpp: whole-tree forward kinematics of a URDF robot, ns per link, at random
// configurations within limits (splitmix64, seed 27), one JSON line per measure:
//   arbor single   arbor_urdf_set_positions, then every link's world matrix (arbor_scene_world_matrices)
//   arbor batched  arbor_urdf_forward_kinematics of 1,000 configurations at once
//   kdl            KDL's TreeFkSolverPos_recursive::JntToCart for every link (kdl_parser's tree)
// Each: the median of 5 timed rounds of about 0.2 s. Usage: robots FILE.urdf
#include <kdl/jntarray.hpp>
#include <kdl/tree.hpp>
#include <kdl/treefksolverpos_recursive.hpp>
#include <kdl_parser/kdl_parser.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include "arbor/arbor.h"
#include "arbor/urdf.h"
#include "../splitmix64.h"
}

static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The median over 5 rounds of the seconds one call of f takes (each round repeats f for about 0.2 s).
template <class F> static double median_seconds(F f) {
    long reps = 1;
    for (;; reps *= 2) { // the repetitions that take about 0.05 s
        double t0 = now();
        for (long i = 0; i < reps; i++) f();
        if (now() - t0 >= 0.05) break;
    }
    reps *= 4;
    std::vector<double> rounds;
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        for (long i = 0; i < reps; i++) f();
        rounds.push_back((now() - t0) / reps);
    }
    std::sort(rounds.begin(), rounds.end());
    return rounds[2];
}

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: robots FILE.urdf\n");
        return 2;
    }
    const char *path = argv[1];
    arbor_scene *s;
    arbor_urdf *robot;
    if (arbor_scene_create(NULL, &s) || arbor_urdf_load(s, path, NULL, &robot)) {
        std::fprintf(stderr, "robots: %s\n", arbor_last_error());
        return 1;
    }
    const uint32_t L = arbor_urdf_link_count(robot), dof = arbor_urdf_dof(robot), J = arbor_urdf_joint_count(robot);
    const uint32_t B = 1000;
    std::vector<double> q((size_t)B * dof);
    std::vector<std::map<std::string, double>> named(B);
    uint64_t state = 27;
    for (uint32_t c = 0; c < B; c++) {
        for (uint32_t k = 0; k < J; k++) {
            arbor_urdf_joint j;
            arbor_urdf_joint_info(robot, k, &j);
            if (j.position_index < 0) continue;
            double lo = j.has_limits ? j.lower : -3.141592653589793, hi = j.has_limits ? j.upper : 3.141592653589793;
            double u = (double)(splitmix64_next(&state) >> 11) * 0x1.0p-53;
            q[(size_t)c * dof + (uint32_t)j.position_index] = named[c][j.name] = lo + (hi - lo) * u;
        }
        for (uint32_t k = 0; k < J; k++) { // mimic joints, for KDL
            arbor_urdf_joint j, m;
            arbor_urdf_joint_info(robot, k, &j);
            if (j.mimic < 0) continue;
            arbor_urdf_joint_info(robot, (uint32_t)j.mimic, &m);
            named[c][j.name] = j.multiplier * named[c][m.name] + j.offset;
        }
    }

    std::vector<arbor_real> m((size_t)L * 16);
    std::vector<arbor_node> links(L);
    for (uint32_t i = 0; i < L; i++) links[i] = arbor_urdf_link_node(robot, i);
    uint32_t next = 0;
    double single = median_seconds([&] {
        arbor_urdf_set_positions(robot, &q[(size_t)(next++ % B) * dof], dof);
        arbor_scene_world_matrices(s, links.data(), L, m.data());
    });
    std::vector<arbor_real> out((size_t)B * L * 16);
    double batched = median_seconds([&] { arbor_urdf_forward_kinematics(robot, q.data(), B, out.data()); });

    KDL::Tree tree;
    if (!kdl_parser::treeFromFile(path, tree)) {
        std::fprintf(stderr, "robots: kdl_parser refused %s\n", path);
        return 1;
    }
    KDL::TreeFkSolverPos_recursive solver(tree);
    std::vector<KDL::JntArray> jq(B, KDL::JntArray(tree.getNrOfJoints()));
    for (uint32_t c = 0; c < B; c++)
        for (const auto &seg : tree.getSegments()) {
            const KDL::Joint &joint = seg.second.segment.getJoint();
            if (joint.getType() != KDL::Joint::None) jq[c](seg.second.q_nr) = named[c][joint.getName()];
        }
    std::vector<std::string> names;
    for (const auto &seg : tree.getSegments()) names.push_back(seg.first);
    KDL::Frame f;
    double sink = 0;
    next = 0;
    double kdl = median_seconds([&] {
        const KDL::JntArray &a = jq[next++ % B];
        for (const std::string &n : names) {
            solver.JntToCart(a, f, n);
            sink += f.p(0);
        }
    });
    std::string file = path;
    file = file.substr(file.find_last_of('/') + 1);
    std::printf("{\"file\":\"%s\",\"links\":%u,\"dof\":%u,\"kdl_links\":%zu,\"arbor_single_ns_per_link\":%.2f,"
                "\"arbor_batched_ns_per_link\":%.2f,\"kdl_ns_per_link\":%.2f,\"sink\":%g}\n",
                file.c_str(), L, dof, names.size(), single * 1e9 / L, batched * 1e9 / ((double)B * L), kdl * 1e9 / names.size(),
                sink != sink ? 0.0 : 1.0);
    arbor_urdf_destroy(robot);
    arbor_scene_destroy(s);
    return 0;
}
