#!/usr/bin/env python3
"""Sets the class-file version of .class files to 50 (Java 6), the newest that JiBX 1.2's
binding compiler will add methods to (it leaves classes of version 51 and later alone, and then
has nowhere to put its code).

Sound only for classes that use nothing newer than Java 6's class-file format: no
invokedynamic, method handles, method types, dynamic constants, modules or packages in the
constant pool, which this script checks, refusing any class that has one. Such classes differ
from version-50 ones only in carrying StackMapTable frames, which a version-50 class may carry;
the methods JiBX adds have none, and the JVM verifies version-50 methods without frames by
type inference. Usage: classfile50.py FILE.class...
"""
import struct
import sys

# Constant-pool tags and the size of each entry after its tag (Utf8 is sized by its length).
SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4}
NEWER = {15: "MethodHandle", 16: "MethodType", 17: "Dynamic", 18: "InvokeDynamic",
         19: "Module", 20: "Package"}


def newer_features(data):
    count = struct.unpack_from(">H", data, 8)[0]
    at, index = 10, 1
    while index < count:
        tag = data[at]
        if tag == 1:
            at += 3 + struct.unpack_from(">H", data, at + 1)[0]
        elif tag in SIZES:
            at += 1 + SIZES[tag]
        elif tag in NEWER:
            return NEWER[tag]
        else:
            return "unknown constant-pool tag %d" % tag
        index += 2 if tag in (5, 6) else 1
    return None


def main(paths):
    for path in paths:
        with open(path, "rb") as f:
            data = bytearray(f.read())
        if data[:4] != b"\xca\xfe\xba\xbe":
            sys.exit("%s: not a class file" % path)
        major = struct.unpack_from(">H", data, 6)[0]
        if major <= 50:
            continue
        found = newer_features(data)
        if found:
            sys.exit("%s: version %d uses %s, which version 50 cannot hold" % (path, major, found))
        struct.pack_into(">H", data, 6, 50)
        with open(path, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv[1:])
