# SPDX-License-Identifier: MIT
# arbor 1.0 -> 1.1: the pure renames (docs/MIGRATING.md lists them, and the replacements a sed
# cannot make). GNU sed:  sed -i -f docs/migrate-1.1.sed FILES
# Running it twice changes nothing more.
s/\barbor_node_get_trs\b/arbor_node_trs/g
s/\barbor_node_get_instance\b/arbor_node_instance/g
