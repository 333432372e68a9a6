"""Checks Thund's .proto subset against the Spark Connect protocol pyspark ships.

Usage: protocheck.py DESCRIPTOR_SET

DESCRIPTOR_SET is a FileDescriptorSet of proto/ (protoc --include_imports
--descriptor_set_out). Every message, field, enum value and RPC of ours must
exist in pyspark's descriptors with the same number, name, type, label and
oneof; pyspark may have more (the subset leaves them out). Exits 1 on any
difference, printing each one.
"""
import sys

from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FieldDescriptor

# Importing the generated modules fills the default pool.
from pyspark.sql.connect.proto import base_pb2, commands_pb2, common_pb2, pipelines_pb2, relations_pb2  # noqa: F401

pool = descriptor_pool.Default()
problems = []
checked = 0


def label(f):
    return "repeated" if f.label == FieldDescriptor.LABEL_REPEATED else "single"


def real_oneof(f):
    o = f.containing_oneof
    if o is None or o.name == "_" + f.name:
        return None
    return o.name


def check_message(ours, full):
    global checked
    try:
        theirs = pool.FindMessageTypeByName(full)
    except KeyError:
        problems.append(f"message {full}: not in Spark's protocol")
        return
    if theirs.GetOptions().map_entry:
        return
    oneof_names = [o.name for o in ours.oneof_decl]
    for f in ours.field:
        checked += 1
        t = theirs.fields_by_number.get(f.number)
        where = f"{full}.{f.name} = {f.number}"
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
    for n in ours.nested_type:
        check_message(n, f"{full}.{n.name}")
    for e in ours.enum_type:
        check_enum(e, f"{full}.{e.name}")


def check_enum(ours, full):
    global checked
    try:
        theirs = pool.FindEnumTypeByName(full)
    except KeyError:
        problems.append(f"enum {full}: not in Spark's protocol")
        return
    for v in ours.value:
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
        for m in fd.message_type:
            check_message(m, f"{fd.package}.{m.name}")
        for e in fd.enum_type:
            check_enum(e, f"{fd.package}.{e.name}")
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
        print(f"protocheck: {len(problems)} difference(s) with pyspark's Spark Connect protocol")
        sys.exit(1)
    print(f"protocheck: {checked} fields, enum values and RPCs match pyspark's Spark Connect protocol")


main()
