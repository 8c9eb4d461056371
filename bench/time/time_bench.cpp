// SPDX-License-Identifier: MIT
// bench/time: tf2 (Debian's libtf2) and arbor/time.h on the same robot, samples and queries, in
// one process. A humanoid of 60 links under map -> odom -> base; every link and odom recorded at
// 100 Hz and base at 1 kHz over 10 s (tf2's window, arbor's default). Prints one JSON line per
// figure: {"figure", "peer", "value", "unit"}; bench/time/run writes the table.
#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <geometry_msgs/TransformStamped.h>
#include <tf2/buffer_core.h>
#include <tf2/exceptions.h>

#include "arbor/arbor.h"
#include "../splitmix64.h"

static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static double uniform(uint64_t *rng, double lo, double hi) {
    return lo + (hi - lo) * (double)(splitmix64_next(rng) >> 11) / 9007199254740992.0;
}
static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
static void emit(const char *figure, const char *peer, double value, const char *unit) {
    std::printf("{\"figure\": \"%s\", \"peer\": \"%s\", \"value\": %.6g, \"unit\": \"%s\"}\n", figure, peer, value, unit);
    std::fflush(stdout);
}

struct robot {
    std::vector<std::string> name; // 0 map, 1 odom, 2 base, then 60 links
    std::vector<int> parent;
    int add(const std::string &n, int p) { name.push_back(n); parent.push_back(p); return (int)name.size() - 1; }
};

static robot humanoid() {
    robot r;
    r.add("map", -1);
    r.add("odom", 0);
    int base = r.add("base", 1);
    int pelvis = r.add("pelvis", base);
    int torso = r.add("torso", pelvis), chest = r.add("chest", torso);
    int neck = r.add("neck", chest), head = r.add("head", neck);
    const char *sensors[] = { "camera_left", "camera_right", "lidar", "imu", "eye_left", "eye_right", "jaw" };
    for (const char *s : sensors) r.add(s, head);
    for (const char *side : { "left", "right" }) {
        int p = pelvis;
        for (const char *j : { "hip_yaw", "hip_roll", "hip_pitch", "knee", "ankle_pitch", "ankle_roll", "toe" })
            p = r.add(std::string(side) + "_" + j, p);
        p = chest;
        for (const char *j : { "shoulder_pitch", "shoulder_roll", "shoulder_yaw", "elbow", "wrist_yaw", "wrist_pitch", "palm" })
            p = r.add(std::string(side) + "_" + j, p);
        int palm = p;
        for (int f = 0; f < 5; f++) {
            int q = palm;
            for (int k = 0; k < 2; k++) q = r.add(std::string(side) + "_finger" + std::to_string(f) + "_" + std::to_string(k), q);
        }
    }
    if (r.name.size() != 63) std::abort();
    return r; // 3 + 60 links
}

static arbor_trs random_trs(uint64_t *rng) {
    arbor_trs t;
    double a = uniform(rng, -1, 1);
    for (int c = 0; c < 3; c++) t.translation[c] = (arbor_real)uniform(rng, -0.3, 0.3), t.scale[c] = 1;
    t.rotation[0] = (arbor_real)(std::sin(a / 2) * 0.6), t.rotation[1] = (arbor_real)(std::sin(a / 2) * 0.8);
    t.rotation[2] = 0, t.rotation[3] = (arbor_real)std::cos(a / 2);
    return t;
}
static geometry_msgs::TransformStamped stamped(const robot &r, int i, double time, const arbor_trs &t) {
    geometry_msgs::TransformStamped ts;
    ts.header.stamp = ros::Time(time);
    ts.header.frame_id = r.name[r.parent[i]];
    ts.child_frame_id = r.name[i];
    ts.transform.translation.x = t.translation[0], ts.transform.translation.y = t.translation[1];
    ts.transform.translation.z = t.translation[2];
    ts.transform.rotation.x = t.rotation[0], ts.transform.rotation.y = t.rotation[1];
    ts.transform.rotation.z = t.rotation[2], ts.transform.rotation.w = t.rotation[3];
    return ts;
}

int main(int argc, char **argv) {
    // --arbor: arbor's parts only, once each (for callgrind: bench/ANALYSIS.md, issue 26)
    const bool solo = argc > 1 && std::string(argv[1]) == "--arbor";
    const int reps = solo ? 1 : 5;
    robot r = humanoid();
    const int N = (int)r.name.size();
    arbor_scene *s;
    arbor_scene_create(NULL, &s);
    std::vector<arbor_node> node(N);
    for (int i = 0; i < N; i++) {
        arbor_node_desc d = {};
        d.name = r.name[i].c_str();
        if (r.parent[i] >= 0) d.parent = node[r.parent[i]];
        arbor_node_create(s, &d, &node[i]);
    }
    std::vector<arbor_node> links(node.begin() + 3, node.end()), recorded(node.begin() + 1, node.end());
    recorded.erase(recorded.begin() + 1); // odom and the links: base at 1 kHz on its own
    arbor_pose *pose;
    arbor_pose_create(s, recorded.data(), (uint32_t)recorded.size(), &pose);
    tf2::BufferCore tf(ros::Duration(10.0));
    uint64_t rng = 1;
    // 10 s of history, the figure of recording timed on the way (a sample of all 60 links: one
    // arbor_pose_record against 60 setTransform calls)
    std::vector<double> rec_tf, rec_arbor;
    const double start = 100.0; // ros::Time of 0 is "latest"
    for (int ms = 0; ms <= 10000; ms++) {
        double t = start + ms * 1e-3;
        arbor_trs b = random_trs(&rng);
        arbor_node_record_trs(s, node[2], t, &b);
        if (!solo) tf.setTransform(stamped(r, 2, t, b), "bench", false);
        if (ms % 10) continue;
        const arbor_node *order = arbor_pose_nodes(pose);
        arbor_trs *trs = arbor_pose_trs(pose);
        std::vector<geometry_msgs::TransformStamped> msgs;
        for (uint32_t i = 0; i < arbor_pose_count(pose); i++) {
            trs[i] = random_trs(&rng);
            int k = (int)(std::find_if(node.begin(), node.end(), [&](arbor_node n) { return n.id == order[i].id; }) - node.begin());
            if (!solo) msgs.push_back(stamped(r, k, t, trs[i]));
        }
        double t0 = now();
        for (const auto &m : msgs) tf.setTransform(m, "bench", false);
        double t1 = now();
        arbor_pose_record(pose, t);
        double t2 = now();
        rec_tf.push_back(t1 - t0), rec_arbor.push_back(t2 - t1); // the same 61 samples: odom and the 60 links
    }
    emit("record one sample of all links", "tf2", median(rec_tf) * 1e6, "us");
    emit("record one sample of all links", "arbor", median(rec_arbor) * 1e6, "us");
    arbor_scene_stats st;
    arbor_scene_stats_get(s, &st);
    emit("bytes a stored sample (all history memory over the samples held)", "arbor", (double)st.history_bytes / (double)st.history_samples, "bytes");
    // one lookup between two random links at a random time
    const int Q = 100000;
    std::vector<int> qa(Q), qb(Q);
    std::vector<double> qt(Q);
    for (int i = 0; i < Q; i++) qa[i] = 3 + (int)(splitmix64_next(&rng) % 60), qb[i] = 3 + (int)(splitmix64_next(&rng) % 60),
                               qt[i] = start + uniform(&rng, 0.5, 9.5);
    std::vector<double> lt, la;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now();
        double sum = 0;
        for (int i = 0; !solo && i < Q; i++) sum += tf.lookupTransform(r.name[qa[i]], r.name[qb[i]], ros::Time(qt[i])).transform.translation.x;
        double t1 = now();
        arbor_real m[16];
        for (int i = 0; i < Q; i++) sum += arbor_scene_lookup(s, node[qa[i]], node[qb[i]], qt[i], m) == ARBOR_OK ? m[12] : 1e9;
        double t2 = now();
        lt.push_back((t1 - t0) / Q), la.push_back((t2 - t1) / Q);
        if (!(std::fabs(sum) < 1e9)) std::fprintf(stderr, "a lookup failed\n");
    }
    emit("one lookup, random links, random time", "tf2", median(lt) * 1e6, "us");
    emit("one lookup, random links, random time", "arbor", median(la) * 1e6, "us");
    // 100,000 stamped lookups of one pair (a lidar sweep in map)
    int lidar = (int)(std::find(r.name.begin(), r.name.end(), "lidar") - r.name.begin());
    std::vector<double> times(Q);
    for (int i = 0; i < Q; i++) times[i] = start + 5 + 0.1 * i / Q;
    std::vector<arbor_real> out((size_t)Q * 16);
    std::vector<double> mt, ma;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now(), sum = 0;
        for (int i = 0; !solo && i < Q; i++) sum += tf.lookupTransform("map", "lidar", ros::Time(times[i])).transform.translation.x;
        double t1 = now();
        arbor_scene_lookup_many(s, node[0], node[lidar], times.data(), Q, out.data());
        double t2 = now();
        mt.push_back(t1 - t0), ma.push_back(t2 - t1);
        (void)sum;
    }
    emit("100,000 stamped lookups of one pair", "tf2", median(mt) * 1e3, "ms");
    emit("100,000 stamped lookups of one pair", "arbor", median(ma) * 1e3, "ms");
    // readers beside a writer at 1 kHz: lookups a second by 1 and by 2 readers
    double written = start + 10.0; // the writer's clock, on across the runs (no stamp twice)
    for (int peer = 0; !solo && peer < 2; peer++) {
        double rate[3] = { 0 };
        for (int readers = 1; readers <= 2; readers++) {
            std::atomic<bool> stop(false);
            std::atomic<long> done(0);
                        std::thread writer([&] {
                uint64_t wr = 99;
                double &t = written;
                while (!stop.load()) {
                    t += 1e-3;
                    arbor_trs b = random_trs(&wr);
                    if (peer) arbor_node_record_trs(s, node[2], t, &b);
                    else tf.setTransform(stamped(r, 2, t, b), "bench", false);
                    std::this_thread::sleep_for(std::chrono::microseconds(1000));
                }
            });
            std::vector<std::thread> th;
            for (int k = 0; k < readers; k++)
                th.emplace_back([&, k] {
                    uint64_t rr = 7 + (uint64_t)k;
                    long n = 0;
                    arbor_real m[16];
                    while (!stop.load()) {
                        int a = 3 + (int)(splitmix64_next(&rr) % 60), b = 3 + (int)(splitmix64_next(&rr) % 60);
                        double t = start + uniform(&rr, 5, 9.5); // within the links' samples
                        if (peer) arbor_scene_lookup(s, node[a], node[b], t, m);
                        else try {
                            tf.lookupTransform(r.name[a], r.name[b], ros::Time(t));
                        } catch (const tf2::TransformException &) { // tf2 walks past the common ancestor to base
                        }
                        n++;
                    }
                    done += n;
                });
            double t0 = now();
            std::this_thread::sleep_for(std::chrono::milliseconds(1000));
            stop.store(true);
            for (auto &t : th) t.join();
            writer.join();
            rate[readers] = (double)done.load() / (now() - t0);
        }
        emit("lookups a second, two readers over one, writer at 1 kHz", peer ? "arbor" : "tf2", rate[2] / rate[1], "x");
        emit("lookups a second, one reader", peer ? "arbor" : "tf2", rate[1], "1/s");
    }
    arbor_pose_destroy(pose);
    arbor_scene_destroy(s);
    return 0;
}
