# SPDX-License-Identifier: MIT
# Doxygen's INPUT_FILTER for arbor's public headers (scripts/docs). The headers are written as
# plain C for people, with these conventions, which this filter turns into Doxygen's markup,
# keeping every line where it is (so warnings point at the right line):
# - the block comment that opens a header (after the SPDX line) is the file's overview: @file;
# - a comment on lines of its own documents the declaration below it, and the declarations
#   that follow that one without a blank line share it: each of them gets a pointer to the
#   first ("/**< See arbor_x(). */");
# - a comment after code on the same line documents that member (/**< ... */);
# - "/* ---- Title ---- */" lines are section rules, left as plain comments.
{ line[NR] = $0 }
END {
    n = NR
    in_comment = 0
    seen_overview = 0
    for (i = 1; i <= n; i++) {
        s = line[i]
        if (in_comment) {
            if (index(s, "*/")) in_comment = 0
            out[i] = s
            continue
        }
        if (s ~ /^[ \t]*\/\*/ && s !~ /^[ \t]*\/\* *SPDX/ && s !~ /^[ \t]*\/\* ----/) {
            # a comment on lines of its own
            if (!seen_overview && s ~ /^\/\*[ \t]*$/) {
                sub(/\/\*/, "/** @file", s)
                seen_overview = 1
            } else {
                seen_overview = 1
                sub(/\/\*/, "/**", s)
                # find where it ends, then count the declarations that share it
                j = i
                while (j <= n && !index(line[j], "*/")) j++
                decls = 0
                first = ""
                for (k = j + 1; k <= n; k++) {
                    t = line[k]
                    if (t ~ /^[ \t]*$/ || t ~ /^[ \t]*(\/\*|#|})/ || (t ~ /\{/ && t !~ /\}/)) break
                    if (first == "" && match(t, /[A-Za-z_][A-Za-z0-9_]*\(/))
                        first = substr(t, RSTART, RLENGTH - 1)
                    if (t ~ /\/\*/) continue
                    if (t ~ /;[ \t]*$/ || t ~ /\{.*\}[ \t]*$/) {
                        decls++
                        if (decls >= 2 && first != "") see[k] = first
                    }
                }
            }
            out[i] = s
            if (!index(s, "*/")) in_comment = 1
            continue
        }
        if (s ~ /[^ \t].*\/\* / && s !~ /\{[ \t]*\/\*/) {
            # a comment after code (not after an opening brace)
            p = index(s, "/* ")
            s = substr(s, 1, p - 1) "/**< " substr(s, p + 3)
            if (!index(s, "*/")) in_comment = 1
        }
        if (i in see) s = s " /**< See " see[i] "(). */"
        out[i] = s
    }
    for (i = 1; i <= n; i++) print out[i]
}
