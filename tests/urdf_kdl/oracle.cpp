// SPDX-License-Identifier: MIT
// tests/urdf_kdl/oracle.cpp: the independent reading of a URDF file that test_urdf compares
// arbor against: urdfdom (the parser ROS uses) for the model, KDL (kdl_parser, orocos-kdl's
// TreeFkSolverPos_recursive) for the links' poses. Nothing of arbor is linked.
//
// Output goes to the file OUT (rosconsole writes its warnings to stdout).
//
//   urdf_kdl model FILE.urdf OUT       one line a link: "link NAME PARENT|-", then one a joint:
//                                      "joint NAME TYPE PARENT CHILD ax ay az LOWER UPPER MIMIC|- MULT OFFSET"
//                                      (types as urdfdom names them; the axis as written), then
//                                      one a geometry: "geometry LINK visual|collision K SHAPE x y z
//                                      qx qy qz qw S0 S1 S2 FILE|-" (K: its index among the link's
//                                      visuals or collisions; the origin as urdfdom's Pose; sizes:
//                                      box dim, cylinder radius length 0, sphere radius 0 0, mesh scale)
//   urdf_kdl fk FILE.urdf CONFIGS OUT  CONFIGS: one configuration a line, "NAME=VALUE ..." (the
//                                      joints that are not mimic; others at 0); mimic joints follow
//                                      their masters here (multiplier * master + offset). Prints,
//                                      per configuration, "config K" then one line a link: its name and
//                                      its pose relative to the root link, 16 values column-major.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <kdl/frames.hpp>
#include <kdl/jntarray.hpp>
#include <kdl/tree.hpp>
#include <kdl/treefksolverpos_recursive.hpp>
#include <kdl_parser/kdl_parser.hpp>
#include <urdf_model/model.h>
#include <urdf_parser/urdf_parser.h>

static const char *type_name(int type)
{
    switch (type) {
    case urdf::Joint::REVOLUTE: return "revolute";
    case urdf::Joint::CONTINUOUS: return "continuous";
    case urdf::Joint::PRISMATIC: return "prismatic";
    case urdf::Joint::FLOATING: return "floating";
    case urdf::Joint::PLANAR: return "planar";
    case urdf::Joint::FIXED: return "fixed";
    default: return "unknown";
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: urdf_kdl model FILE.urdf OUT | urdf_kdl fk FILE.urdf CONFIGS OUT\n");
        return 2;
    }
    std::string mode = argv[1];
    urdf::ModelInterfaceSharedPtr model = urdf::parseURDFFile(argv[2]);
    if (!model) {
        std::fprintf(stderr, "urdf_kdl: urdfdom refused %s\n", argv[2]);
        return 1;
    }
    FILE *out = std::fopen(argv[mode == "model" ? 3 : 4], "w");
    if (!out || (mode == "fk" && argc < 5)) {
        std::fprintf(stderr, "urdf_kdl: cannot write the output\n");
        return 2;
    }
    if (mode == "model") {
        for (const auto &l : model->links_) {
            auto parent = l.second->getParent();
            std::fprintf(out, "link %s %s\n", l.first.c_str(), parent ? parent->name.c_str() : "-");
        }
        for (const auto &j : model->joints_) {
            const urdf::Joint &joint = *j.second;
            double lower = joint.limits ? joint.limits->lower : 0, upper = joint.limits ? joint.limits->upper : 0;
            std::fprintf(out, "joint %s %s %s %s %.17g %.17g %.17g %.17g %.17g %s %.17g %.17g\n", joint.name.c_str(),
                        type_name(joint.type), joint.parent_link_name.c_str(), joint.child_link_name.c_str(),
                        joint.axis.x, joint.axis.y, joint.axis.z, lower, upper,
                        joint.mimic ? joint.mimic->joint_name.c_str() : "-", joint.mimic ? joint.mimic->multiplier : 0.0,
                        joint.mimic ? joint.mimic->offset : 0.0);
        }
        for (const auto &l : model->links_) {
            for (int kind = 0; kind < 2; kind++) {
                std::vector<std::pair<urdf::Pose, urdf::GeometrySharedPtr>> shapes;
                if (kind == 0)
                    for (const auto &v : l.second->visual_array) shapes.emplace_back(v->origin, v->geometry);
                else
                    for (const auto &c : l.second->collision_array) shapes.emplace_back(c->origin, c->geometry);
                for (size_t k = 0; k < shapes.size(); k++) {
                    const urdf::Pose &o = shapes[k].first;
                    const urdf::Geometry *g = shapes[k].second.get();
                    double z[3] = { 0, 0, 0 };
                    const char *shape = "unknown";
                    std::string file = "-";
                    if (g->type == urdf::Geometry::BOX) {
                        auto b = static_cast<const urdf::Box *>(g);
                        shape = "box", z[0] = b->dim.x, z[1] = b->dim.y, z[2] = b->dim.z;
                    } else if (g->type == urdf::Geometry::CYLINDER) {
                        auto c = static_cast<const urdf::Cylinder *>(g);
                        shape = "cylinder", z[0] = c->radius, z[1] = c->length;
                    } else if (g->type == urdf::Geometry::SPHERE) {
                        shape = "sphere", z[0] = static_cast<const urdf::Sphere *>(g)->radius;
                    } else if (g->type == urdf::Geometry::MESH) {
                        auto m = static_cast<const urdf::Mesh *>(g);
                        shape = "mesh", z[0] = m->scale.x, z[1] = m->scale.y, z[2] = m->scale.z, file = m->filename;
                    }
                    std::fprintf(out, "geometry %s %s %zu %s %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %s\n",
                                 l.first.c_str(), kind ? "collision" : "visual", k, shape, o.position.x, o.position.y,
                                 o.position.z, o.rotation.x, o.rotation.y, o.rotation.z, o.rotation.w, z[0], z[1], z[2],
                                 file.c_str());
                }
            }
        }
        return std::fclose(out) == 0 ? 0 : 1;
    }
    if (mode != "fk") {
        std::fprintf(stderr, "urdf_kdl: unknown mode %s\n", argv[1]);
        return 2;
    }
    KDL::Tree tree;
    if (!kdl_parser::treeFromUrdfModel(*model, tree)) {
        std::fprintf(stderr, "urdf_kdl: kdl_parser refused %s\n", argv[2]);
        return 1;
    }
    KDL::TreeFkSolverPos_recursive solver(tree);
    std::ifstream configs(argv[3]);
    std::string line;
    int k = 0;
    while (std::getline(configs, line)) {
        std::map<std::string, double> q;
        std::istringstream words(line);
        std::string word;
        while (words >> word) {
            size_t eq = word.find('=');
            q[word.substr(0, eq)] = std::stod(word.substr(eq + 1));
        }
        for (const auto &j : model->joints_) // mimic joints follow their masters, as robot_state_publisher does
            if (j.second->mimic)
                q[j.first] = j.second->mimic->multiplier * q[j.second->mimic->joint_name] + j.second->mimic->offset;
        KDL::JntArray jnt(tree.getNrOfJoints());
        for (const auto &seg : tree.getSegments()) {
            const KDL::Joint &joint = seg.second.segment.getJoint();
            if (joint.getType() != KDL::Joint::None) jnt(seg.second.q_nr) = q[joint.getName()];
        }
        std::fprintf(out, "config %d\n", k++);
        for (const auto &seg : tree.getSegments()) {
            KDL::Frame f;
            if (solver.JntToCart(jnt, f, seg.first) < 0) {
                std::fprintf(stderr, "urdf_kdl: no pose for %s\n", seg.first.c_str());
                return 1;
            }
            std::fprintf(out, "%s", seg.first.c_str());
            for (int c = 0; c < 4; c++)
                for (int r = 0; r < 4; r++) {
                    double v = r == 3 ? (c == 3 ? 1.0 : 0.0) : (c == 3 ? f.p(r) : f.M(r, c));
                    std::fprintf(out, " %.17g", v);
                }
            std::fprintf(out, "\n");
        }
    }
    return std::fclose(out) == 0 ? 0 : 1;
}
