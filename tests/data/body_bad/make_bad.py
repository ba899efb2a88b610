#!/usr/bin/env python3
# Writes the refused files of this folder, one defect each, from one good
# compass (BASE) or a small file of its own (EXTRA), and prints each file's
# expected "line, col" (where its marker text sits) for the table of
# tests/test_body_load.c test_bad_files.  Run it here: python3 make_bad.py
import re, sys
BASE = """# {comment}
name: bad
gravity: 9.81
slope: 0.05
bodies:
  - {{name: hip_x, parent: world, joint: slide, axis: [1, 0, 0]}}
  - {{name: hip_z, parent: hip_x, joint: slide, axis: [0, 0, 1], mass: 10}}
  - name: leg_a
    parent: hip_z
    joint: hinge
    axis: [0, -1, 0]
    mass: 5
    com: [0, 0, -0.5]
  - name: leg_b
    parent: hip_z
    joint: hinge
    axis: [0, -1, 0]
    mass: bodies.leg_a.mass
    com: [0, 0, -0.5]
sites:
  - {{name: hip, body: hip_z}}
  - {{name: foot_a, body: leg_a, pos: [0, 0, -1]}}
  - {{name: foot_b, body: leg_b, pos: [0, 0, -1]}}
contacts:
  - {{name: foot_a, type: pin, site: foot_a}}
  - {{name: foot_b, type: pin, site: foot_b}}
phases:
  - name: swing
    contacts: [foot_a]
    events:
      - name: heelstrike
        when: {{gap: foot_b, crosses: either}}
        if: [{{ahead: foot_b, of: foot_a, by: 0.02}}, {{ahead: hip, of: foot_a}}]
        impact: true
        relabel: true
        then: section
      - name: rolled_back
        when: {{rate: leg_a, crosses: up}}
        fail: fell_backward
relabel: [{{swap: [leg_a, leg_b]}}]
section:
  after: heelstrike
  touching: [foot_a, foot_b]
  origin: foot_a
  free: [leg_a, leg_a_dot, leg_b_dot]
guess: {{leg_a: 0.271, leg_b: -0.271, leg_a_dot: -1.092, leg_b_dot: -0.377}}
"""
B = BASE
cases = [
 ("unknown_key", "a misspelt key in a body", "    mass: 5\n", "    masss: 5\n", "masss", "unknown key 'masss'"),
 ("wrong_type", "sites is a mapping, not a list", "sites:\n  - {name: hip, body: hip_z}\n  - {name: foot_a, body: leg_a, pos: [0, 0, -1]}\n  - {name: foot_b, body: leg_b, pos: [0, 0, -1]}\n", "sites: {name: hip, body: hip_z}\n", "{name: hip, body", "must be a list"),
 ("contact_no_site", "a contact on a site that does not exist", "{name: foot_b, type: pin, site: foot_b}", "{name: foot_b, type: pin, site: toe_b}", "toe_b", "names no site ('toe_b')"),
 ("parent_missing", "a body whose parent does not exist", "  - name: leg_b\n    parent: hip_z", "  - name: leg_b\n    parent: torso", "torso", "which is no body"),
 ("parent_later", "a body whose parent comes later", "  - name: leg_a\n    parent: hip_z", "  - name: leg_a\n    parent: leg_b", "leg_b\n", "comes later"),
 ("no_way_out", "a phase with no way out: stuck only fails", "        fail: fell_backward\n", "        then: stuck\n  - name: stuck\n    contacts: [foot_a]\n    events:\n      - {name: down, when: {height: hip}, fail: fell_forward}\n", "name: stuck", "no way out"),
 ("loop_no_way_out", "phase 0 only loops back to itself", "        then: section\n", "        then: swing\n", "name: swing", "no way out"),
 ("then_unknown", "then: names no phase", "        fail: fell_backward\n", "        then: swign\n", "swign", "names no phase"),
 ("fail_unknown", "fail: names no walker status", "fail: fell_backward", "fail: fell_over", "fell_over", "no walker status"),
 ("relabel_twice", "a coordinate swapped twice", "relabel: [{swap: [leg_a, leg_b]}]", "relabel: [{swap: [leg_a, leg_b]}, {swap: [leg_b, leg_a]}]", "leg_b, leg_a]", "swapped twice"),
 ("relabel_kinds", "a hinge swapped with a slide", "relabel: [{swap: [leg_a, leg_b]}]", "relabel: [{swap: [leg_a, hip_x]}]", "[leg_a, hip_x]", "different kinds"),
 ("relabel_self", "a coordinate swapped with itself", "relabel: [{swap: [leg_a, leg_b]}]", "relabel: [{swap: [leg_a, leg_a]}]", "leg_a]", "with itself"),
 ("after_not_section", "section after an event that does not end the stride", "  after: heelstrike", "  after: rolled_back", "rolled_back\n  touching", "does not end the stride"),
 ("after_unknown", "section after no event", "  after: heelstrike", "  after: heel_strike", "heel_strike", "names no event"),
 ("free_unknown", "a free name that is no coordinate", "free: [leg_a, leg_a_dot, leg_b_dot]", "free: [leg_a, leg_c_dot, leg_b_dot]", "leg_c_dot", "is no coordinate or rate"),
 ("count_q", "too many free positions for the lift", "free: [leg_a, leg_a_dot, leg_b_dot]", "free: [leg_a, leg_b, leg_a_dot, leg_b_dot]", "free:", "2 positions are not free but touching and origin give 3 equations"),
 ("count_v", "too few free rates for phase 0's pin", "free: [leg_a, leg_a_dot, leg_b_dot]", "free: [leg_a, leg_a_dot]", "free:", "3 rates are not free but the contacts of phase 'swing' give 2"),
 ("unknown_param", "an expression naming an unknown parameter", "    mass: bodies.leg_a.mass\n", "    mass: 1.5 * leg_mass\n", "leg_mass", "unknown name 'leg_mass'"),
 ("event_force_absent", "a force event on a contact the phase does not have", "when: {rate: leg_a, crosses: up}", "when: {force: foot_b, crosses: down}", "foot_b, crosses: down", "does not have"),
 ("guard_force_absent", "a guard on the force of a contact the phase does not have", "{ahead: hip, of: foot_a}]", "{force: foot_b, above: 0}]", "foot_b, above", "does not have"),
 ("no_relabel_table", "relabel: true without a relabel table", "relabel: [{swap: [leg_a, leg_b]}]\n", "", "true\n        then: section", "no relabel: table"),
 ("mass_negative", "a negative mass", "    mass: 5\n", "    mass: -5\n", "-5", "bodies.leg_a.mass must lie in [0, 1e+06], not -5"),
 ("radius_zero", "a roll contact of radius zero", "{name: foot_b, type: pin, site: foot_b}", "{name: foot_b, type: roll, site: foot_b, radius: 0}", "0}", "contacts.foot_b.radius must lie in"),
 ("guess_unknown", "a guess for no coordinate", "guess: {leg_a: 0.271", "guess: {leg_z: 0.271", "leg_z", "is no coordinate or rate"),
 ("inertia_count", "inertia with 4 entries", "    com: [0, 0, -0.5]\n  - name: leg_b", "    com: [0, 0, -0.5]\n    inertia: [1, 1, 1, 0]\n  - name: leg_b", "[1, 1, 1, 0]", "3 entries"),
 ("second_document", "two YAML documents", "guess: {leg_a", "---\nguess: {leg_a", "---", "a second YAML document"),
 ("alias", "an alias", "slope: 0.05\n", "slope: &s 0.05\ntime_limit: *s\n", "*s", "an alias"),
 ("syntax", "broken YAML", "slope: 0.05\n", "slope: [0.05\n", None, "not valid YAML"),
 ("outcome_both", "an event with then: and fail:", "        fail: fell_backward\n", "        fail: fell_backward\n        then: swing\n", "name: rolled_back", "one outcome"),
 ("joint_unknown", "a joint type that does not exist", "    joint: hinge\n    axis: [0, -1, 0]\n    mass: 5", "    joint: hnige\n    axis: [0, -1, 0]\n    mass: 5", "hnige", "unknown joint 'hnige'"),
 ("strike_on_fail", "a failure marked as the swing foot's strike", "        fail: fell_backward\n", "        strike: true\n        fail: fell_backward\n", "fell_backward", "impact, relabel and strike do nothing there"),
 ("strike_not_bool", "strike: neither true nor false", "        relabel: true\n", "        relabel: true\n        strike: yes\n", "yes", "strike must be true or false"),
]
EXTRA = {
 "lock_ball": ("a lock on a ball joint's coordinate", """# {c}
gravity: 9.81
slope: 0
bodies:
  - {{name: torso, parent: world, joint: free, mass: 10, inertia: [1, 1, 1]}}
  - {{name: leg, parent: torso, joint: ball, mass: 1, inertia: [1, 1, 1]}}
sites:
  - {{name: foot, body: leg, pos: [0, 0, -1]}}
contacts:
  - {{name: foot, type: pin, site: foot}}
  - {{name: hold, type: lock, coord: leg.qx}}
""", "leg.qx", "not a 1-DOF"),
 "force_ball": ("a force term on a ball joint", """# {c}
gravity: 9.81
slope: 0
bodies:
  - {{name: torso, parent: world, joint: free, mass: 10, inertia: [1, 1, 1]}}
  - {{name: leg, parent: torso, joint: ball, mass: 1, inertia: [1, 1, 1]}}
forces:
  - {{name: spring, on: {{leg: 1}}, stiffness: 3}}
""", "leg: 1", "not a 1-DOF"),
 "relabel_ball_hinge": ("a ball swapped with a hinge", """# {c}
gravity: 9.81
slope: 0
bodies:
  - {{name: torso, parent: world, joint: free, mass: 10, inertia: [1, 1, 1]}}
  - {{name: hip_a, parent: torso, joint: ball, mass: 1, inertia: [1, 1, 1]}}
  - {{name: hip_b, parent: torso, joint: hinge, axis: [0, 1, 0], mass: 1}}
sites:
  - {{name: foot, body: hip_a, pos: [0, 0, -1]}}
contacts:
  - {{name: foot, type: pin, site: foot}}
phases:
  - {{name: stand, contacts: [foot], events: [{{name: up, when: {{coord: hip_b}}, then: section}}]}}
relabel: [{{swap: [hip_a, hip_b]}}]
""", "[hip_a, hip_b]", "different kinds"),
 "too_many_coords": ("five free joints: a state of 65 entries", "# {c}\ngravity: 9.81\nslope: 0\nbodies:\n" + "".join("  - {{name: b%d, parent: world, joint: free, mass: 1, inertia: [1, 1, 1]}}\n" % i for i in range(5)), "bodies:", "more than 64 entries"),
 "too_many_rows": ("19 pins in one planar phase: 38 rows", "# {c}\ngravity: 9.81\nslope: 0\nbodies:\n  - {{name: b, parent: world, joint: planar, mass: 1, inertia: [0, 1, 0]}}\nsites:\n" + "".join("  - {{name: s%d, body: b, pos: [%d, 0, 0]}}\n" % (i, i) for i in range(19)) + "contacts:\n" + "".join("  - {{name: c%d, type: pin, site: s%d}}\n" % (i, i) for i in range(19)) + "phases:\n  - name: all\n    contacts: [" + ", ".join("c%d" % i for i in range(19)) + "]\n", "contacts: [c0", "38 constraint rows, more than 36"),
 "too_many_bodies": ("41 bodies: 14 planar joints make 42", "# {c}\ngravity: 9.81\nslope: 0\nbodies:\n" + "".join("  - {{name: b%d, parent: %s, joint: planar}}\n" % (i, "world" if i == 0 else "b%d" % (i-1)) for i in range(14)), "b13, parent", "more than 40 bodies"),
}
out = []
for name, comment, old, new, marker, phrase in cases:
    text = BASE.replace("{{", "\x01").replace("}}", "\x02").replace("{comment}", comment).replace("\x01", "{").replace("\x02", "}")
    if old not in text: sys.exit("no " + repr(old) + " for " + name)
    text = text.replace(old, new, 1)
    open(name + ".yaml", "w").write(text)
    if marker is None:
        out.append((name, 0, 0, phrase)); continue
    i = text.index(marker, text.index(new) if new else 0) if new and marker in new else text.index(marker)
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    out.append((name, line, col, phrase))
for name, (comment, tmpl, marker, phrase) in EXTRA.items():
    text = tmpl.replace("{{", "\x01").replace("}}", "\x02").replace("{c}", comment).replace("\x01", "{").replace("\x02", "}")
    open(name + ".yaml", "w").write(text)
    i = text.index(marker)
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    out.append((name, line, col, phrase))
for o in out: print('        {"%s", %d, %d, "%s"},' % (o[0], o[1], o[2], o[3].replace('"','\\"')))
