// SPDX-License-Identifier: MIT
// tf2 as the oracle of arbor/time.h: the same samples given to tf2's BufferCore (Debian's
// libtf2-dev) and to arbor answer the same lookups, at random times between random pairs of a
// random forest, within 1e-6 relative (float build) or 1e-9 (double), and refuse the same ones
// (tf2's ExtrapolationException and ConnectivityException against ARBOR_ERR_EXTRAPOLATION and
// ARBOR_ERR_NOT_CONNECTED). Samples arrive in random order (late ones included) over 14 s with
// tf2's and arbor's 10 s window, so pruning and old data are compared too; stamps are whole
// nanoseconds (tf2's ros::Time), queries too; ARBOR_TIME_LATEST against tf2's Time(0).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <geometry_msgs/TransformStamped.h>
#include <tf2/buffer_core.h>
#include <tf2/exceptions.h>

#include "arbor/arbor.h"
#include "../../bench/splitmix64.h"

#if ARBOR_REAL_IS_DOUBLE
static const double TOL = 1e-9;
#else
static const double TOL = 1e-6;
#endif

static double uniform(uint64_t *rng, double lo, double hi) {
    return lo + (hi - lo) * (double)(splitmix64_next(rng) >> 11) / 9007199254740992.0;
}

// tf2's answer as a column-major matrix in double.
static void matrix_of(const geometry_msgs::Transform &t, double m[16]) {
    double x = t.rotation.x, y = t.rotation.y, z = t.rotation.z, w = t.rotation.w;
    double r[3][3] = { { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w) },
                       { 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w) },
                       { 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y) } };
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 3; i++) m[c * 4 + i] = r[i][c];
        m[c * 4 + 3] = 0;
    }
    m[12] = t.translation.x, m[13] = t.translation.y, m[14] = t.translation.z, m[15] = 1;
}

enum { OK, EXTRAPOLATION, CONNECTIVITY, OTHER };

int main() {
    const int NODES = 24, ROUNDS = 4, QUERIES = 3000;
    long compared = 0, refused = 0, latest = 0, failures = 0, above = 0;
    uint64_t rng = 2026;
    for (int round = 0; round < ROUNDS; round++) {
        arbor_scene *s;
        if (arbor_scene_create(NULL, &s) != ARBOR_OK) return 1;
        tf2::BufferCore tf(ros::Duration(10.0));
        std::vector<arbor_node> node(NODES);
        std::vector<int> parent(NODES);
        std::vector<std::string> name(NODES);
        for (int i = 0; i < NODES; i++) {
            name[i] = "n" + std::to_string(i);
            parent[i] = i < 2 ? -1 : i < 4 ? i - 2 : (int)(splitmix64_next(&rng) % (uint64_t)i); // two trees, rooted at n0 and n1
            arbor_node_desc d = {};
            d.name = name[i].c_str();
            if (parent[i] >= 0) d.parent = node[parent[i]];
            if (arbor_node_create(s, &d, &node[i]) != ARBOR_OK) return 1;
        }
        // Samples: each non-root node at about 20 Hz over 14 s (some static: a tf2 static
        // transform, an arbor node never recorded), given to both in one shuffled order.
        struct sample { int node; int64_t ns; arbor_trs trs; };
        std::vector<sample> samples;
        for (int i = 2; i < NODES; i++) {
            bool fixed = splitmix64_next(&rng) % 6 == 0;
            arbor_trs t;
            double ax[3] = { uniform(&rng, -1, 1), uniform(&rng, -1, 1), uniform(&rng, -1, 1) };
            double n = std::sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
            int64_t ns = (int64_t)uniform(&rng, 0, 2e9);
            for (int k = 0; fixed ? k < 1 : ns < 14000000000LL; k++, ns += (int64_t)uniform(&rng, 2e7, 8e7)) {
                double angle = uniform(&rng, -3.2, 3.2);
                for (int c = 0; c < 3; c++) {
                    t.translation[c] = (arbor_real)uniform(&rng, -2, 2);
                    t.rotation[c] = (arbor_real)(ax[c] / n * std::sin(angle / 2));
                    t.scale[c] = 1;
                }
                t.rotation[3] = (arbor_real)std::cos(angle / 2);
                if (fixed) {
                    arbor_node_set_trs(s, node[i], &t);
                    geometry_msgs::TransformStamped ts;
                    ts.header.frame_id = name[parent[i]];
                    ts.child_frame_id = name[i];
                    arbor_trs u;
                    arbor_node_trs(s, node[i], &u); // the rotation as arbor normalised it
                    ts.transform.translation.x = u.translation[0], ts.transform.translation.y = u.translation[1];
                    ts.transform.translation.z = u.translation[2];
                    ts.transform.rotation.x = u.rotation[0], ts.transform.rotation.y = u.rotation[1];
                    ts.transform.rotation.z = u.rotation[2], ts.transform.rotation.w = u.rotation[3];
                    tf.setTransform(ts, "test", true);
                } else {
                    samples.push_back({ i, ns, t });
                }
            }
        }
        for (size_t i = 0; i + 1 < samples.size(); i++) { // mostly in order, 1 in 8 swapped a few places later
            if (splitmix64_next(&rng) % 8) continue;
            size_t j = i + 1 + splitmix64_next(&rng) % 6;
            if (j < samples.size()) std::swap(samples[i], samples[j]);
        }
        std::stable_sort(samples.begin(), samples.end(), [](const sample &a, const sample &b) { return a.ns / 100000000 < b.ns / 100000000; });
        // The ranges each node holds, by the rule both keep (tf2's TimeCache::insertData and
        // pruneList): a sample more than 10 s older than the node's latest is dropped, and so are
        // the ones it leaves behind.
        std::vector<std::vector<int64_t>> held(NODES);
        for (const sample &x : samples) {
            std::vector<int64_t> &h = held[x.node];
            int64_t newest = h.empty() ? x.ns : std::max(h.back(), x.ns);
            if (x.ns + 10000000000LL >= newest) {
                h.insert(std::upper_bound(h.begin(), h.end(), x.ns), x.ns);
                while (h.front() + 10000000000LL < newest) h.erase(h.begin());
            }
        }
        for (const sample &x : samples) {
            if (arbor_node_record_trs(s, node[x.node], (double)x.ns * 1e-9, &x.trs) != ARBOR_OK) {
                std::fprintf(stderr, "record refused: %s\n", arbor_last_error());
                return 1;
            }
            double r[4] = { x.trs.rotation[0], x.trs.rotation[1], x.trs.rotation[2], x.trs.rotation[3] };
            double n = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
            geometry_msgs::TransformStamped ts;
            ts.header.stamp.fromNSec((uint64_t)x.ns);
            ts.header.frame_id = name[parent[x.node]];
            ts.child_frame_id = name[x.node];
            ts.transform.translation.x = x.trs.translation[0], ts.transform.translation.y = x.trs.translation[1];
            ts.transform.translation.z = x.trs.translation[2];
            ts.transform.rotation.x = r[0] / n, ts.transform.rotation.y = r[1] / n;
            ts.transform.rotation.z = r[2] / n, ts.transform.rotation.w = r[3] / n;
            tf.setTransform(ts, "test", false);
        }
        for (int q = 0; q < QUERIES; q++) {
            int a = (int)(splitmix64_next(&rng) % NODES), b = (int)(splitmix64_next(&rng) % NODES);
            bool use_latest = q % 10 == 0;
            int64_t ns = use_latest ? 0 : (int64_t)uniform(&rng, -0.5e9, 14.5e9);
            int want = OK, got = OK;
            double m[16] = { 0 };
            try {
                matrix_of(tf.lookupTransform(name[a], name[b], ros::Time().fromNSec((uint64_t)(ns < 0 ? 0 : ns))).transform, m);
            } catch (const tf2::ExtrapolationException &) {
                want = EXTRAPOLATION;
            } catch (const tf2::ConnectivityException &) {
                want = CONNECTIVITY;
            } catch (const tf2::TransformException &e) {
                want = OTHER;
            }
            if (ns < 0) continue; // ros::Time has no negative stamps
            // What arbor must answer, from the model: the trees, and the path below the nearest
            // common ancestor (tf2 also reads the nodes above it, and may refuse for them).
            std::vector<int> up_a, up_b;
            for (int n = a; n >= 0; n = parent[n]) up_a.push_back(n);
            for (int n = b; n >= 0; n = parent[n]) up_b.push_back(n);
            int expect = OK;
            if (up_a.back() != up_b.back()) {
                expect = CONNECTIVITY;
            } else if (!use_latest) {
                for (int side = 0; side < 2; side++) {
                    const std::vector<int> &up = side ? up_b : up_a, &other = side ? up_a : up_b;
                    for (int n : up) {
                        if (std::find(other.begin(), other.end(), n) != other.end()) break; // the common ancestor
                        if (!held[n].empty() && (ns < held[n].front() || ns > held[n].back())) expect = EXTRAPOLATION;
                    }
                }
            }
            if (expect == EXTRAPOLATION && want != EXTRAPOLATION) {
                std::fprintf(stderr, "round %d: %s <- %s at %lld ns: tf2 answers where the model refuses\n", round,
                             name[a].c_str(), name[b].c_str(), (long long)ns);
                failures++;
            }
            if (expect != OK) want = expect;          // arbor says why without reading the time above the ancestor
            else if (want != OK) want = OK, above++;  // tf2 refused for a node above the ancestor: arbor answers
            arbor_real out[16];
            arbor_result r = arbor_scene_lookup(s, node[a], node[b], use_latest ? ARBOR_TIME_LATEST : (double)ns * 1e-9, out);
            got = r == ARBOR_OK ? OK : r == ARBOR_ERR_EXTRAPOLATION ? EXTRAPOLATION : r == ARBOR_ERR_NOT_CONNECTED ? CONNECTIVITY : OTHER;
            if (got != want) {
                std::fprintf(stderr, "round %d: %s <- %s at %lld ns: tf2 %d, arbor %d (%s)\n", round, name[a].c_str(),
                             name[b].c_str(), (long long)ns, want, got, r ? arbor_last_error() : "ok");
                failures++;
                continue;
            }
            if (got != OK) {
                refused++;
                continue;
            }
            if (m[15] == 0) continue; // tf2 refused above the common ancestor: no tf2 answer to compare
            latest += use_latest;
            compared++;
            for (int i = 0; i < 16; i++) {
                double scale = std::fabs(m[i]) > 1 ? std::fabs(m[i]) : 1;
                if (!(std::fabs(out[i] - m[i]) <= TOL * scale * 4)) {
                    std::fprintf(stderr, "round %d: %s <- %s at %lld ns: element %d %.12g, tf2 %.12g\n", round,
                                 name[a].c_str(), name[b].c_str(), (long long)ns, i, (double)out[i], m[i]);
                    failures++;
                    break;
                }
            }
        }
        arbor_scene_destroy(s);
    }
    std::printf("test_time_tf2: %ld lookups the same as tf2's (%ld at the latest time), %ld refused by both (or by arbor as "
                "not connected where tf2 met a node without data first), %ld answered by arbor where tf2 refused for a node "
                "above the common ancestor, %ld failures\n", compared, latest, refused, above, failures);
    return failures || compared < 1000 || refused < 100 ? 1 : 0;
}
