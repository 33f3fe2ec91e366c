/*
 * Values, primary keys and object paths (docs/PROTOCOL.md §3.2–3.4).
 *
 *   val      u8 tag | payload           tag = ORCore's orc_type number
 *     0  null        -
 *     1  bool        bool
 *     2  int         z
 *     3  float       u32 (IEEE 754 bits)
 *     4  double      u64 (IEEE 754 bits)
 *     5  string      str
 *     6  binary      bin
 *     7  timestamp   z seconds | z nanoseconds   (|ns| < 10^9, sign of seconds)
 *     8  decimal128  u64 low | u64 high
 *     9  objectId    12 bytes
 *     10 uuid        16 bytes
 *     11 link        objref
 *
 *   pk       a val whose tag is 0, 2, 5, 9 or 10
 *   objref   name class | pk
 *   objpath  objref | v steps | step{steps}      steps <= limits.maxPathDepth
 *   step     u8 0 | name property
 *            u8 1 | v index                      (only right after a property step)
 *            u8 2 | str key                      (only right after a property step)
 *            the first step is a property step
 */

extension WireWriter {
    mutating func value(_ value: WireValue) throws(WireError) {
        u8(value.tag)
        switch value {
        case .null: break
        case .bool(let v): bool(v)
        case .int(let v): zigzag(v)
        case .float(let v): u32(v.bitPattern)
        case .double(let v): u64(v.bitPattern)
        case .string(let v): string(v)
        case .binary(let v): binary(v)
        case .timestamp(let v):
            guard v.isValid else {
                throw WireError(.badMessage, field: "timestamp", "nanoseconds \(v.nanoseconds) out of range or of the wrong sign for seconds \(v.seconds)")
            }
            zigzag(v.seconds)
            zigzag(Int64(v.nanoseconds))
        case .decimal128(let v):
            u64(v.low)
            u64(v.high)
        case .objectId(let v):
            bytes.append(contentsOf: v.bytes)
        case .uuid(let v):
            bytes.append(contentsOf: v.bytes)
        case .link(let v):
            do throws(WireError) { try objectRef(v) } catch { throw error.within("link") }
        }
    }

    mutating func primaryKey(_ key: WirePrimaryKey) {
        // A primary key's encoding is its value's; none of its cases can fail.
        switch key {
        case .null: u8(0)
        case .int(let v): u8(2); zigzag(v)
        case .string(let v): u8(5); string(v)
        case .objectId(let v): u8(9); bytes.append(contentsOf: v.bytes)
        case .uuid(let v): u8(10); bytes.append(contentsOf: v.bytes)
        }
    }

    mutating func objectRef(_ ref: WireObjectRef) throws(WireError) {
        try name(ref.className, "className")
        primaryKey(ref.primaryKey)
    }

    mutating func objectPath(_ path: WireObjectPath) throws(WireError) {
        try objectRef(path.root)
        guard path.path.count <= limits.maxPathDepth else {
            throw WireError(.limitsExceeded, field: "path", "\(path.path.count) steps, over the limit of \(limits.maxPathDepth)")
        }
        varint(UInt64(path.path.count))
        var previousWasProperty = false
        for (i, step) in path.path.enumerated() {
            if case .property(let name) = step {
                u8(0)
                do throws(WireError) { try self.name(name, "property") } catch { throw error.within("path[\(i)]") }
                previousWasProperty = true
                continue
            }
            // An index or a key picks an element of the property named just before.
            guard previousWasProperty else {
                let kind = if case .index = step { "an index" } else { "a key" }
                throw WireError(.badMessage, field: "path[\(i)]", "\(kind) step must follow a property step")
            }
            switch step {
            case .property: break
            case .index(let index): u8(1); varint(index)
            case .key(let key): u8(2); string(key)
            }
            previousWasProperty = false
        }
    }
}

extension WireReader {
    mutating func value() throws(WireError) -> WireValue {
        let start = position
        let tag = try u8("tag")
        switch tag {
        case 0: return .null
        case 1: return .bool(try bool("bool"))
        case 2: return .int(try zigzag("int"))
        case 3: return .float(Float(bitPattern: try u32("float")))
        case 4: return .double(Double(bitPattern: try u64("double")))
        case 5: return .string(try string("string"))
        case 6: return .binary(try binary("binary"))
        case 7: return .timestamp(try timestamp())
        case 8:
            let low = try u64("decimal128.low")
            let high = try u64("decimal128.high")
            return .decimal128(WireDecimal128(low: low, high: high))
        case 9: return .objectId(try objectId())
        case 10: return .uuid(try uuid())
        case 11:
            do throws(WireError) { return .link(try objectRef()) } catch { throw error.within("link") }
        default:
            throw failure("tag", "unknown value tag \(tag)", at: start)
        }
    }

    mutating func timestamp() throws(WireError) -> WireTimestamp {
        let seconds = try zigzag("timestamp.seconds")
        let start = position
        let nanos = try zigzag("timestamp.nanoseconds")
        guard let narrow = Int32(exactly: nanos) else {
            throw failure("timestamp.nanoseconds", "\(nanos) out of range", at: start)
        }
        let stamp = WireTimestamp(seconds: seconds, nanoseconds: narrow)
        guard stamp.isValid else {
            throw failure("timestamp.nanoseconds", "\(nanos) out of range or of the wrong sign for seconds \(seconds)", at: start)
        }
        return stamp
    }

    // `fixedBytes` hands over exactly the count asked for, so the value always forms.

    mutating func objectId() throws(WireError) -> WireObjectId {
        try fixedBytes(12, "objectId").withUnsafeBytes { WireObjectId(bytes: $0)! }
    }

    mutating func uuid() throws(WireError) -> WireUUID {
        try fixedBytes(16, "uuid").withUnsafeBytes { WireUUID(bytes: $0)! }
    }

    mutating func primaryKey() throws(WireError) -> WirePrimaryKey {
        let start = position
        let tag = try u8("primaryKey")
        switch tag {
        case 0: return .null
        case 2: return .int(try zigzag("primaryKey"))
        case 5: return .string(try string("primaryKey"))
        case 9: return .objectId(try objectId())
        case 10: return .uuid(try uuid())
        default:
            throw failure("primaryKey", "value tag \(tag) cannot be a primary key (null, int, string, objectId or uuid)", at: start)
        }
    }

    mutating func objectRef() throws(WireError) -> WireObjectRef {
        let className = try name("className")
        return WireObjectRef(className: className, primaryKey: try primaryKey())
    }

    mutating func objectPath() throws(WireError) -> WireObjectPath {
        let root = try objectRef()
        let start = position
        let steps = try count("path", minimumElementSize: 2)
        guard steps <= limits.maxPathDepth else {
            throw failure("path", "\(steps) steps, over the limit of \(limits.maxPathDepth)", at: start, code: .limitsExceeded)
        }
        var path: [WirePathElement] = []
        var previousWasProperty = false
        for i in 0..<steps {
            let stepStart = position
            do throws(WireError) {
                let kind = try u8("kind")
                switch kind {
                case 0:
                    path.append(.property(try name("property")))
                    previousWasProperty = true
                case 1, 2:
                    guard previousWasProperty else {
                        throw failure("kind", "an \(kind == 1 ? "index" : "key") step must follow a property step", at: stepStart)
                    }
                    path.append(kind == 1 ? .index(try varint("index")) : .key(try string("key")))
                    previousWasProperty = false
                default:
                    throw failure("kind", "unknown path step kind \(kind)", at: stepStart)
                }
            } catch {
                throw error.within("path[\(i)]")
            }
        }
        return WireObjectPath(root, path: path)
    }
}
