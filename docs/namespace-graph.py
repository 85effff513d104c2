#!/usr/bin/env python3
"""Prints the namespace dependency graph of src/ as Mermaid, and the cycles in it.

Options: --project NAME (one project's namespaces only), --projects (one node per project).

An edge A -> B means a file declaring namespace A refers to namespace B, through a `using` directive or a
qualified name (`DivCon.B.Type`). Run from the repository root: python3 docs/namespace-graph.py [--project NAME | --projects]
"""
import os
import re
import sys
from collections import defaultdict

prefix = "DivCon"
# --project Schedulers: only the namespaces of one project (both ends of every edge); --projects: one node per project.
project = sys.argv[sys.argv.index("--project") + 1] if "--project" in sys.argv else None
by_project = "--projects" in sys.argv
ns_decl = re.compile(r"^\s*namespace\s+([\w.]+)", re.M)
ref = re.compile(r"\b(" + re.escape(prefix) + r"(?:\.\w+)+)")
files = defaultdict(list)  # namespace -> file texts
for root, _, names in os.walk("src"):
    if "/obj" in root or "/bin" in root:
        continue
    for name in names:
        if name.endswith(".cs"):
            text = open(os.path.join(root, name), encoding="utf-8").read()
            m = ns_decl.search(text)
            if m:
                files[m.group(1)].append(text)

namespaces = set(files)
type_decl = re.compile(r"\b(?:record\s+struct|record\s+class|class|record|struct|interface|enum)\s+(\w+)")
# "Program" is the entry point's class, never referred to by name (the same word names many record members).
types = {ns: {t for text in texts for t in type_decl.findall(text)} - {"Program"} for ns, texts in files.items()}
edges = defaultdict(set)
for ns, texts in files.items():
    # A namespace sees its ancestors' types without a using directive: a simple name declared in an ancestor
    # counts as a reference to it.
    ancestors = [a for a in namespaces if ns.startswith(a + ".")]
    for text in texts:
        code = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', re.sub(r"//.*", "", text))  # no comments, no string contents
        words = set(re.findall(r"(?<![.\w])(\w+)\b", code))  # not after '.': a member access is no type name
        for a in ancestors:
            if words & types[a]:
                edges[ns].add(a)
        for r in ref.findall(text):
            # The longest declared namespace that the reference starts with (a type name may follow it).
            target = max((n for n in namespaces if r == n or r.startswith(n + ".")), key=len, default=None)
            if target and target != ns:
                edges[ns].add(target)

def project_of(n):
    return n.split(".")[1] if n.count(".") >= 1 else n

if project:
    keep = lambda n: project_of(n) == project
    edges = defaultdict(set, {a: {b for b in bs if keep(b)} for a, bs in edges.items() if keep(a)})
    namespaces = {n for n in namespaces if keep(n)}
elif by_project:
    merged = defaultdict(set)
    for a, bs in edges.items():
        for b in bs:
            if project_of(a) != project_of(b):
                merged[prefix + "." + project_of(a)].add(prefix + "." + project_of(b))
    edges, namespaces = merged, {prefix + "." + project_of(n) for n in namespaces}

# Strongly connected components (Tarjan) = the cycles.
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in sorted(namespaces):
    if v not in index:
        visit(v)

short = lambda n: n[len(prefix) + 1:] if n.startswith(prefix + ".") else n
in_cycle = {n for c in sccs for n in c}
print("graph LR")
for a in sorted(edges):
    for b in sorted(edges[a]):
        mutual = a in edges[b]
        if mutual and a > b:
            continue
        arrow = "<-->" if mutual else "-->"
        print(f"  {short(a).replace('.', '_')}[{short(a)}] {arrow} {short(b).replace('.', '_')}[{short(b)}]")
for n in sorted(in_cycle):
    print(f"  style {short(n).replace('.', '_')} stroke:#d55e00,stroke-width:3px")
print()
for c in sccs:
    print("cycle:", " , ".join(short(n) for n in c))
