#!/usr/bin/env python3
"""Writes the catalog of Spark's built-in SQL functions that thund-lsp's
completion, hover and signature help read (analysis/sparkfuncs/catalogs/spark-VERSION.json).

It asks a real Spark: SHOW SYSTEM FUNCTIONS, then DESCRIBE FUNCTION EXTENDED
for each name, through Spark Connect when --remote is given, else through a
local pyspark session (one JVM, local[1], no UI). Run it with the python of
the venv that scripts/spark.sh installs (scripts/gen-functions.sh does).

What is kept of each description is short: every usage line (signature and
the first sentence of what it does), the first example with its result, and
the version it appeared in. The text is Spark's own documentation (Apache
License 2.0), carried over unchanged apart from whitespace and HTML links
reduced to their text.
"""
import argparse
import json
import re
import sys


def first_sentence(text):
    text = re.sub(r"<a [^>]*>(.*?)</a>", r"\1", text, flags=re.S)
    text = re.sub(r"\s+", " ", text).strip()
    # A sentence ends at . ! or ? followed by a space and a capital or a
    # backquote, unless the dot closes an abbreviation (e.g., i.e.).
    for m in re.finditer(r"[.!?](?=\s+[A-Z`(])", text):
        before = text[: m.end()]
        if re.search(r"\b(e\.g|i\.e|etc|vs)\.$", before):
            continue
        return before
    return text


def parse_usages(usage, name):
    """Splits a Usage: block into (signature, summary) pairs."""
    usage = usage[len("Usage:"):] if usage.startswith("Usage:") else usage
    out = []
    # Each usage starts a line (after indentation) and has "signature - text".
    blocks = re.split(r"\n\s*\n", usage.strip("\n"))
    for block in blocks:
        block = block.strip()
        if not block:
            continue
        m = re.match(r"(.+?)\s+-\s+(.*)", block, flags=re.S)
        if not m:
            out.append({"signature": re.sub(r"\s+", " ", block), "summary": ""})
            continue
        out.append({"signature": re.sub(r"\s+", " ", m.group(1)).strip(),
                    "summary": first_sentence(m.group(2))})
    return out


def parse_extended(ext):
    """Returns the first example (query and result) and the Since version."""
    example = None
    since = ""
    lines = ext.split("\n")
    for i, line in enumerate(lines):
        s = line.strip()
        if example is None and s.startswith("> "):
            query = s[2:].strip()
            result = []
            for nxt in lines[i + 1:]:
                t = nxt.strip()
                if not t or t.startswith("> ") or re.match(r"^[A-Z][a-z]+:", t):
                    break
                result.append(t)
            example = {"query": query, "result": "\n".join(result)}
        m = re.match(r"Since:\s*(\S+)", s)
        if m:
            since = m.group(1)
    return example, since


def describe(spark, name):
    quoted = "`" + name.replace("`", "``") + "`"
    rows = [r[0] for r in spark.sql("DESCRIBE FUNCTION EXTENDED " + quoted).collect()]
    entry = {"name": name}
    for r in rows:
        if r.startswith("Class:"):
            entry["class"] = r[len("Class:"):].strip()
        elif r.startswith("Usage:"):
            entry["usages"] = parse_usages(r, name)
        elif r.startswith("Extended Usage:"):
            example, since = parse_extended(r[len("Extended Usage:"):])
            if example:
                entry["example"] = example
            if since:
                entry["since"] = since
    return entry


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--remote", help="Spark Connect endpoint (sc://host:port); else a local session")
    ap.add_argument("--out", required=True, help="the JSON file to write")
    args = ap.parse_args()

    from pyspark.sql import SparkSession
    if args.remote:
        spark = SparkSession.builder.remote(args.remote).getOrCreate()
    else:
        spark = (SparkSession.builder.master("local[1]").appName("thund-gen-functions")
                 .config("spark.ui.enabled", "false").getOrCreate())
    try:
        names = sorted({r[0] for r in spark.sql("SHOW SYSTEM FUNCTIONS").collect()})
        functions = []
        for name in names:
            try:
                functions.append(describe(spark, name))
            except Exception as e:  # a name Spark lists but cannot describe
                print(f"gen-functions: DESCRIBE FUNCTION {name}: {e}", file=sys.stderr)
        catalog = {
            "generated_by": "scripts/gen-functions.sh (SHOW SYSTEM FUNCTIONS, DESCRIBE FUNCTION EXTENDED)",
            "license": "Function documentation text from Apache Spark, Apache License 2.0",
            "spark_version": spark.version,
            "functions": functions,
        }
    finally:
        spark.stop()
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(catalog, f, indent=1, ensure_ascii=False, sort_keys=True)
        f.write("\n")
    print(f"gen-functions: {len(functions)} functions of Spark {catalog['spark_version']} -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
