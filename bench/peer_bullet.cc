// SPDX-License-Identifier: MIT
// Bullet 3 as a peer of the simulator benchmark (Debian's libbullet-dev): the same boxes on the same
// ground, its default dynamics world (btDbvtBroadphase, btSequentialImpulseConstraintSolver with its
// split impulse), one step of dt per stepSimulation, and no sleeping bodies (a resting wall would
// otherwise cost Bullet nothing after two seconds, which measures its deactivation, not its solver).
#include "peer.h"

#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

extern "C" const char *bench_bullet_version(void)
{
    static char v[16];
    std::snprintf(v, sizeof v, "%d.%02d", btGetVersion() / 100, btGetVersion() % 100);
    return v;
}

extern "C" int bench_bullet(const BenchBox *boxes, int n, double g, double mu, double dt, int steps, int iters,
                            BenchRun *out)
{
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher(&config);
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
    world.setGravity(btVector3(0, 0, -g));
    world.getSolverInfo().m_numIterations = iters;
    const btScalar friction = std::sqrt(mu); // the pair's coefficient is the product

    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btDefaultMotionState>> states;
    std::vector<std::unique_ptr<btRigidBody>> bodies;
    auto add = [&](btCollisionShape *shape, btScalar mass, const btVector3 &at) {
        shapes.emplace_back(shape);
        btVector3 inertia(0, 0, 0);
        if (mass > 0) shape->calculateLocalInertia(mass, inertia);
        states.emplace_back(new btDefaultMotionState(btTransform(btQuaternion::getIdentity(), at)));
        btRigidBody::btRigidBodyConstructionInfo info(mass, states.back().get(), shape, inertia);
        info.m_friction = friction;
        info.m_restitution = 0;
        bodies.emplace_back(new btRigidBody(info));
        // no sleeping: the other engines simulate every body every step (ODE's auto-disable is off too)
        bodies.back()->setActivationState(DISABLE_DEACTIVATION);
        world.addRigidBody(bodies.back().get());
    };
    add(new btStaticPlaneShape(btVector3(0, 0, 1), 0), 0, btVector3(0, 0, 0));
    for (int i = 0; i < n; ++i)
        add(new btBoxShape(btVector3(boxes[i].half[0], boxes[i].half[1], boxes[i].half[2])), boxes[i].mass,
            btVector3(boxes[i].x[0], boxes[i].x[1], boxes[i].x[2]));

    double seconds = 0, contacts = 0;
    for (int s = 0; s < steps; ++s) {
        double t0 = bench_clock();
        world.stepSimulation(dt, 0); // no interpolation substeps: exactly one step of dt
        seconds += bench_clock() - t0;
        for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
            contacts += dispatcher.getManifoldByIndexInternal(m)->getNumContacts();
    }
    double drift = 0;
    for (int i = 0; i < n; ++i) {
        if (boxes[i].mass <= 0) continue;
        const btVector3 &p = bodies[i + 1]->getWorldTransform().getOrigin();
        double dx = p.x() - boxes[i].x[0], dy = p.y() - boxes[i].x[1], dz = p.z() - boxes[i].x[2];
        drift = std::max(drift, std::sqrt(dx * dx + dy * dy + dz * dz));
    }
    for (auto &b : bodies) world.removeRigidBody(b.get());
    out->ms_step = 1e3 * seconds / steps;
    out->contacts = contacts / steps;
    out->drift = drift;
    return 0;
}
