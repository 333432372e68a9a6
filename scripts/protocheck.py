"""Checks Thund's .proto subset against the Spark Connect protocol pyspark ships.

Usage: protocheck.py DESCRIPTOR_SET

DESCRIPTOR_SET is a FileDescriptorSet of proto/ (protoc --include_imports
--include_source_info --descriptor_set_out), checked against the pyspark
this Python imports. Every message, field, enum value and RPC of ours must
exist in pyspark's descriptors with the same number, name, type, label and
oneof; pyspark may have more (the subset leaves them out). One whose
leading comment says "Since Spark X.Y." is checked so only against pyspark
X.Y and later; an older pyspark must not have it (so the comment is true).
Exits 1 on any difference, printing each one.
"""
import re
import sys

from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FieldDescriptor

# Importing the generated modules fills the default pool.
import pyspark
from pyspark.sql.connect.proto import base_pb2, commands_pb2, common_pb2, expressions_pb2, pipelines_pb2, relations_pb2  # noqa: F401

pool = descriptor_pool.Default()
problems = []
checked = 0
absent = 0
SPARK = tuple(int(x) for x in pyspark.__version__.split(".")[:2])
# Leading comments by source path, for the file being checked.
comments = {}


def since(path):
    """The (major, minor) a "Since Spark X.Y." comment at path names, or None."""
    m = re.search(r"Since\s+Spark\s+(\d+)\.(\d+)\.", comments.get(tuple(path), ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def too_new(path, name, what):
    """Whether the element at path is newer than this pyspark; if so, checks
    that pyspark lacks it (what() says whether it has it)."""
    global absent
    v = since(path)
    if v is None or v <= SPARK:
        return False
    absent += 1
    if what():
        problems.append(f"{name}: marked Since Spark {v[0]}.{v[1]}, but pyspark {pyspark.__version__} already has it")
    return True


def label(f):
    return "repeated" if f.label == FieldDescriptor.LABEL_REPEATED else "single"


def real_oneof(f):
    o = f.containing_oneof
    if o is None or o.name == "_" + f.name:
        return None
    return o.name


def find_message(full):
    try:
        return pool.FindMessageTypeByName(full)
    except KeyError:
        return None


def find_enum(full):
    try:
        return pool.FindEnumTypeByName(full)
    except KeyError:
        return None


def check_message(ours, full, path):
    global checked
    if too_new(path, f"message {full}", lambda: find_message(full) is not None):
        return
    theirs = find_message(full)
    if theirs is None:
        problems.append(f"message {full}: not in Spark's protocol")
        return
    if theirs.GetOptions().map_entry:
        return
    oneof_names = [o.name for o in ours.oneof_decl]
    for i, f in enumerate(ours.field):
        where = f"{full}.{f.name} = {f.number}"
        if too_new(path + [2, i], where, lambda: f.number in theirs.fields_by_number):
            continue
        checked += 1
        t = theirs.fields_by_number.get(f.number)
        if t is None:
            problems.append(f"{where}: Spark has no field {f.number}")
            continue
        if t.name != f.name:
            problems.append(f"{where}: Spark names field {f.number} `{t.name}`")
        if t.type != f.type:
            problems.append(f"{where}: type {f.type}, Spark has {t.type}")
        tl = "repeated" if (t.is_repeated if hasattr(t, "is_repeated") else t.label == FieldDescriptor.LABEL_REPEATED) else "single"
        ol = "repeated" if f.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED else "single"
        if tl != ol:
            problems.append(f"{where}: {ol}, Spark has {tl}")
        if f.type_name:
            tn = (t.message_type or t.enum_type).full_name
            if f.type_name.lstrip(".") != tn:
                problems.append(f"{where}: type {f.type_name.lstrip('.')}, Spark has {tn}")
        ours_oneof = None
        if f.HasField("oneof_index") and not f.proto3_optional:
            ours_oneof = oneof_names[f.oneof_index]
        if ours_oneof != real_oneof(t):
            problems.append(f"{where}: oneof {ours_oneof}, Spark has {real_oneof(t)}")
        theirs_optional = t.containing_oneof is not None and t.containing_oneof.name == "_" + t.name
        if bool(f.proto3_optional) != theirs_optional:
            problems.append(f"{where}: optional={bool(f.proto3_optional)}, Spark has optional={theirs_optional}")
    for i, n in enumerate(ours.nested_type):
        check_message(n, f"{full}.{n.name}", path + [3, i])
    for i, e in enumerate(ours.enum_type):
        check_enum(e, f"{full}.{e.name}", path + [4, i])


def check_enum(ours, full, path):
    global checked
    if too_new(path, f"enum {full}", lambda: find_enum(full) is not None):
        return
    theirs = find_enum(full)
    if theirs is None:
        problems.append(f"enum {full}: not in Spark's protocol")
        return
    for i, v in enumerate(ours.value):
        if too_new(path + [2, i], f"enum {full}: {v.name} = {v.number}", lambda: v.number in theirs.values_by_number):
            continue
        checked += 1
        t = theirs.values_by_number.get(v.number)
        if t is None or t.name != v.name:
            problems.append(f"enum {full}: {v.name} = {v.number}, Spark has {t.name if t else 'nothing'}")


def main():
    fds = descriptor_pb2.FileDescriptorSet()
    with open(sys.argv[1], "rb") as fh:
        fds.ParseFromString(fh.read())
    for fd in fds.file:
        if fd.package != "spark.connect":
            continue
        comments.clear()
        for loc in fd.source_code_info.location:
            if loc.leading_comments:
                comments[tuple(loc.path)] = loc.leading_comments
        for i, m in enumerate(fd.message_type):
            check_message(m, f"{fd.package}.{m.name}", [4, i])
        for i, e in enumerate(fd.enum_type):
            check_enum(e, f"{fd.package}.{e.name}", [5, i])
        for s in fd.service:
            theirs = pool.FindServiceByName(f"{fd.package}.{s.name}")
            for m in s.method:
                global checked
                checked += 1
                t = theirs.methods_by_name.get(m.name)
                if t is None:
                    problems.append(f"rpc {s.name}.{m.name}: not in Spark's protocol")
                    continue
                if (m.input_type.lstrip("."), m.output_type.lstrip("."), m.server_streaming) != (
                    t.input_type.full_name, t.output_type.full_name, t.server_streaming):
                    problems.append(f"rpc {s.name}.{m.name}: signature differs from Spark's")
    for p in problems:
        print("protocheck:", p)
    if problems:
        print(f"protocheck: {len(problems)} difference(s) with pyspark {pyspark.__version__}'s Spark Connect protocol")
        sys.exit(1)
    print(f"protocheck: {checked} fields, enum values and RPCs match pyspark {pyspark.__version__}'s Spark Connect protocol"
          + (f"; {absent} newer ones are absent from it, as marked" if absent else ""))


main()
