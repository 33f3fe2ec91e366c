/*
 * Message bodies (docs/PROTOCOL.md §4). Every body is read to its last byte: trailing
 * bytes are an error, except in an error body of a newer protocol version, whose
 * version-1 fields are read and the rest ignored (§2.3).
 *
 *   bind      v session | str appId | str accessToken | u8 flags (0x1: identity) |
 *             [v ident | u64 salt] | v lastIntegratedServerVersion |
 *             u8 mode (0 flexible, 1 partition) [| pk partition]
 *   ident     v session | v ident | u64 salt | v serverVersion | v lastIntegratedClientVersion
 *   query     v session | v queryVersion | v n | (name class | str query){n}
 *   upload    v session | v n | (v clientVersion | v lastIntegratedServerVersion |
 *             hlc | instructions){n}
 *   download  v session | v queryVersion | v serverVersion | v lastIntegratedClientVersion |
 *             v downloadableBytes | u8 bootstrap (0 none, 1 in progress, 2 last batch) |
 *             v n | (v serverVersion | v lastIntegratedClientVersion | v originFileIdent |
 *             v originClientVersion | hlc | instructions){n}
 *   mark      v session | v requestId
 *   error     v session | v code | u8 flags | str message
 *             [| v queryVersion]                                  flags 0x1
 *             [| u16 lowest | u16 highest]                        flags 0x2
 *             [| v serverVersion | v n | (objref | str reason){n}] flags 0x4
 *             flags 0x8: fatal
 *   ping      v timestamp | v roundTripTime
 *   pong      v timestamp
 *   unbind    v session
 *
 *   hlc       v milliseconds | v counter (<= UInt32.max)
 *
 * Session numbers are never 0, except in an error about the whole connection.
 */

extension WireWriter {
    /// Writes the body of `message`.
    mutating func body(_ message: WireMessage) throws(WireError) {
        do throws(WireError) {
            try bodyFields(message)
        } catch {
            throw error.within(message.type.description)
        }
    }

    private mutating func session(_ session: UInt64) throws(WireError) {
        if session == 0 { throw WireError(.badMessage, field: "session", "0 is reserved for connection-level errors") }
        varint(session)
    }

    private mutating func bodyFields(_ message: WireMessage) throws(WireError) {
        switch message {
        case .bind(let m):
            try session(m.session)
            string(m.appId)
            string(m.accessToken)
            if let identity = m.fileIdentity {
                guard identity.ident != 0 else {
                    throw WireError(.badMessage, field: "fileIdentity.ident", "0 names the server, not a client file")
                }
                u8(1)
                varint(identity.ident)
                u64(identity.salt)
            } else {
                u8(0)
            }
            varint(m.lastIntegratedServerVersion)
            switch m.syncMode {
            case .flexible: u8(0)
            case .partition(let value): u8(1); primaryKey(value)
            }
        case .ident(let m):
            try session(m.session)
            guard m.fileIdentity.ident != 0 else {
                throw WireError(.badMessage, field: "fileIdentity.ident", "0 names the server, not a client file")
            }
            varint(m.fileIdentity.ident)
            u64(m.fileIdentity.salt)
            varint(m.serverVersion)
            varint(m.lastIntegratedClientVersion)
        case .query(let m):
            try session(m.session)
            varint(m.queryVersion)
            varint(UInt64(m.queries.count))
            var seen = Set<String>()
            for (i, query) in m.queries.enumerated() {
                guard seen.insert(query.className).inserted else {
                    throw WireError(.badMessage, field: "queries[\(i)].className", "class \(query.className) has a query already")
                }
                do throws(WireError) { try name(query.className, "className") } catch { throw error.within("queries[\(i)]") }
                string(query.query)
            }
        case .upload(let m):
            try session(m.session)
            varint(UInt64(m.changesets.count))
            for (i, changeset) in m.changesets.enumerated() {
                varint(changeset.clientVersion)
                varint(changeset.lastIntegratedServerVersion)
                hybridTimestamp(changeset.timestamp)
                do throws(WireError) { try writeInstructions(changeset.instructions) } catch { throw error.within("changesets[\(i)]") }
            }
        case .download(let m):
            try session(m.session)
            varint(m.queryVersion)
            varint(m.progress.serverVersion)
            varint(m.progress.lastIntegratedClientVersion)
            varint(m.progress.downloadableBytes)
            u8(m.bootstrap.rawValue)
            varint(UInt64(m.changesets.count))
            for (i, changeset) in m.changesets.enumerated() {
                varint(changeset.serverVersion)
                varint(changeset.lastIntegratedClientVersion)
                varint(changeset.originFileIdent)
                varint(changeset.originClientVersion)
                hybridTimestamp(changeset.timestamp)
                do throws(WireError) { try writeInstructions(changeset.instructions) } catch { throw error.within("changesets[\(i)]") }
            }
        case .mark(let m):
            try session(m.session)
            varint(m.requestId)
        case .error(let m):
            varint(m.session)
            varint(UInt64(m.code.rawValue))
            var flags: UInt8 = m.isFatal ? 0x8 : 0
            if m.queryVersion != nil { flags |= 0x1 }
            if m.supportedVersions != nil { flags |= 0x2 }
            if m.compensatingWrite != nil { flags |= 0x4 }
            u8(flags)
            string(m.message)
            if let version = m.queryVersion { varint(version) }
            if let versions = m.supportedVersions {
                u16(versions.lowerBound)
                u16(versions.upperBound)
            }
            if let write = m.compensatingWrite {
                varint(write.serverVersion)
                varint(UInt64(write.writes.count))
                for (i, rejected) in write.writes.enumerated() {
                    do throws(WireError) { try objectRef(rejected.object) } catch { throw error.within("compensatingWrite.writes[\(i)]") }
                    string(rejected.reason)
                }
            }
        case .ping(let m):
            varint(m.timestamp)
            varint(m.roundTripTime)
        case .pong(let m):
            varint(m.timestamp)
        case .unbind(let m):
            try session(m.session)
        }
    }

    private mutating func hybridTimestamp(_ stamp: WireHybridTimestamp) {
        varint(stamp.milliseconds)
        varint(UInt64(stamp.counter))
    }
}

extension WireReader {
    /// Reads a whole body of `type`. With `lenientError`, an error body may carry fields
    /// and flag bits of a newer version, which are ignored.
    mutating func body(_ type: WireMessageType, lenientError: Bool = false) throws(WireError) -> WireMessage {
        do throws(WireError) {
            let message = try bodyFields(type, lenientError: lenientError)
            if !(lenientError && type == .error) { try expectEnd() }
            return message
        } catch {
            throw error.within(type.description)
        }
    }

    private mutating func bodyFields(_ type: WireMessageType, lenientError: Bool) throws(WireError) -> WireMessage {
        switch type {
        case .bind:
            let session = try self.session()
            let appId = try string("appId")
            let accessToken = try string("accessToken")
            let flagsStart = position
            let flags = try u8("flags")
            guard flags & ~0x1 == 0 else {
                throw failure("flags", "unknown flag bits 0x\(String(flags & ~0x1, radix: 16))", at: flagsStart)
            }
            var identity: WireFileIdentity?
            if flags & 0x1 != 0 { identity = try fileIdentity() }
            let lastIntegrated = try varint("lastIntegratedServerVersion")
            let modeStart = position
            let mode: WireSyncMode
            switch try u8("syncMode") {
            case 0: mode = .flexible
            case 1: mode = .partition(try primaryKey())
            case let other: throw failure("syncMode", "unknown sync mode \(other)", at: modeStart)
            }
            return .bind(WireBind(session: session, appId: appId, accessToken: accessToken, fileIdentity: identity,
                                  lastIntegratedServerVersion: lastIntegrated, syncMode: mode))
        case .ident:
            let session = try self.session()
            let identity = try fileIdentity()
            let serverVersion = try varint("serverVersion")
            return .ident(WireIdent(session: session, fileIdentity: identity, serverVersion: serverVersion,
                                    lastIntegratedClientVersion: try varint("lastIntegratedClientVersion")))
        case .query:
            let session = try self.session()
            let queryVersion = try varint("queryVersion")
            // A class query is at least a one-letter name (2 bytes) and an empty string (1 byte).
            let count = try self.count("queries", minimumElementSize: 3)
            var queries: [WireClassQuery] = []
            var seen = Set<String>()
            for i in 0..<count {
                let start = position
                do throws(WireError) {
                    let className = try name("className")
                    guard seen.insert(className).inserted else {
                        throw failure("className", "class \(className) has a query already", at: start)
                    }
                    queries.append(WireClassQuery(className: className, query: try string("query")))
                } catch {
                    throw error.within("queries[\(i)]")
                }
            }
            return .query(WireQuery(session: session, queryVersion: queryVersion, queries: queries))
        case .upload:
            let session = try self.session()
            // A changeset is at least 4 one-byte varints (two versions, the clock) and a count.
            let count = try self.count("changesets", minimumElementSize: 5)
            var changesets: [WireUploadChangeset] = []
            for i in 0..<count {
                do throws(WireError) {
                    let clientVersion = try varint("clientVersion")
                    let lastIntegrated = try varint("lastIntegratedServerVersion")
                    let stamp = try hybridTimestamp()
                    changesets.append(WireUploadChangeset(clientVersion: clientVersion, lastIntegratedServerVersion: lastIntegrated,
                                                          timestamp: stamp, instructions: try readInstructions()))
                } catch {
                    throw error.within("changesets[\(i)]")
                }
            }
            return .upload(WireUpload(session: session, changesets: changesets))
        case .download:
            let session = try self.session()
            let queryVersion = try varint("queryVersion")
            let serverVersion = try varint("progress.serverVersion")
            let lastIntegrated = try varint("progress.lastIntegratedClientVersion")
            let downloadable = try varint("progress.downloadableBytes")
            let bootstrap: WireBootstrapState = try code("bootstrap", unknown: "bootstrap state")
            // A changeset is at least 6 one-byte varints (four versions, the clock) and a count.
            let count = try self.count("changesets", minimumElementSize: 7)
            var changesets: [WireDownloadChangeset] = []
            for i in 0..<count {
                do throws(WireError) {
                    let changesetVersion = try varint("serverVersion")
                    let changesetIntegrated = try varint("lastIntegratedClientVersion")
                    let origin = try varint("originFileIdent")
                    let originVersion = try varint("originClientVersion")
                    let stamp = try hybridTimestamp()
                    changesets.append(WireDownloadChangeset(serverVersion: changesetVersion, lastIntegratedClientVersion: changesetIntegrated,
                                                            originFileIdent: origin, originClientVersion: originVersion,
                                                            timestamp: stamp, instructions: try readInstructions()))
                } catch {
                    throw error.within("changesets[\(i)]")
                }
            }
            let progress = WireDownloadProgress(serverVersion: serverVersion, lastIntegratedClientVersion: lastIntegrated,
                                                downloadableBytes: downloadable)
            return .download(WireDownload(session: session, queryVersion: queryVersion, progress: progress,
                                          bootstrap: bootstrap, changesets: changesets))
        case .mark:
            let session = try self.session()
            return .mark(WireMark(session: session, requestId: try varint("requestId")))
        case .error:
            return .error(try errorBody(lenient: lenientError))
        case .ping:
            let timestamp = try varint("timestamp")
            return .ping(WirePing(timestamp: timestamp, roundTripTime: try varint("roundTripTime")))
        case .pong:
            return .pong(WirePong(timestamp: try varint("timestamp")))
        case .unbind:
            return .unbind(WireUnbind(session: try self.session()))
        }
    }

    private mutating func errorBody(lenient: Bool) throws(WireError) -> WireErrorMessage {
        let session = try varint("session")
        let codeStart = position
        let rawCode = try varint("code")
        guard let narrow = UInt16(exactly: rawCode), let code = SyncErrorCode(rawValue: narrow) else {
            throw failure("code", "unknown error code \(rawCode)", at: codeStart)
        }
        let flagsStart = position
        let flags = try u8("flags")
        if !lenient && flags & ~0xF != 0 {
            throw failure("flags", "unknown flag bits 0x\(String(flags & ~0xF, radix: 16))", at: flagsStart)
        }
        let text = try string("message")
        var message = WireErrorMessage(session: session, code: code, message: text, isFatal: flags & 0x8 != 0)
        if flags & 0x1 != 0 { message.queryVersion = try varint("queryVersion") }
        if flags & 0x2 != 0 {
            let start = position
            let lowest = try u16("supportedVersions.lowest")
            let highest = try u16("supportedVersions.highest")
            guard lowest <= highest else {
                throw failure("supportedVersions", "lowest version \(lowest) is above highest \(highest)", at: start)
            }
            message.supportedVersions = lowest...highest
        }
        if flags & 0x4 != 0 {
            let serverVersion = try varint("compensatingWrite.serverVersion")
            // A rejected write is at least an objref (3 bytes) and an empty reason (1 byte).
            let count = try self.count("compensatingWrite.writes", minimumElementSize: 4)
            var writes: [WireRejectedWrite] = []
            for i in 0..<count {
                do throws(WireError) {
                    let object = try objectRef()
                    writes.append(WireRejectedWrite(object: object, reason: try string("reason")))
                } catch {
                    throw error.within("compensatingWrite.writes[\(i)]")
                }
            }
            message.compensatingWrite = WireCompensatingWrite(serverVersion: serverVersion, writes: writes)
        }
        return message
    }

    private mutating func fileIdentity() throws(WireError) -> WireFileIdentity {
        let start = position
        let ident = try varint("fileIdentity.ident")
        if ident == 0 { throw failure("fileIdentity.ident", "0 names the server, not a client file", at: start) }
        return WireFileIdentity(ident: ident, salt: try u64("fileIdentity.salt"))
    }

    private mutating func hybridTimestamp() throws(WireError) -> WireHybridTimestamp {
        let milliseconds = try varint("timestamp.milliseconds")
        return WireHybridTimestamp(milliseconds: milliseconds, counter: try varint32("timestamp.counter"))
    }
}
