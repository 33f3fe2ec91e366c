import Foundation
import OpenRealmWire

/// The session's connection: an access token, a connection from the transport, the
/// `bind` first, events onto the session's queue, the end of a connection and the
/// backoff before the next, and the deadlines that keep an attempt or a silent
/// connection from hanging (invariants 3 to 5 of ``SyncSession``).
extension SyncSession {
    private var syncURL: URL? {
        var base = user.appState.configuration.resolvedBaseURL
        if base.hasPrefix("https://") { base = "wss://" + base.dropFirst(8) } else if base.hasPrefix("http://") { base = "ws://" + base.dropFirst(7) }
        return URL(string: base + "/api/client/v2.0/app/\(user.appState.id)/realm-sync")
    }

    /// How long an access-token fetch may take before the attempt is abandoned: the app's
    /// request timeout (the transport's own deadline) and a margin.
    var tokenTimeout: TimeInterval { TimeInterval(user.appState.configuration.defaultRequestTimeoutMS) / 1000 + 5 }

    /// Starts a connection attempt: fetches a valid access token, then opens the
    /// WebSocket. Does nothing while connected, connecting, or fetching a token already
    /// (a second fetch would make the session drop the first one's answer).
    func connect() {
        guard wantsConnection, !stoppedForGood, connection == nil, deadlines.tokenRequestedAt == nil else { return }
        cancelScheduledReconnect()
        log(.detail, "connecting (attempt \(backoffAttempts))")
        connectGeneration += 1
        let generation = connectGeneration
        deadlines.tokenRequestedAt = .now()
        setConnectionState(.connecting)
        // The token request has its own deadline (the app's request timeout), and the
        // session abandons it past `tokenTimeout` in any case.
        let user = self.user
        Task { [weak self] in
            let token: Result<String, Error>
            do { token = .success(try await user.validAccessToken()) } catch { token = .failure(error) }
            guard let self else { return }
            self.queue.async { self.openSocket(token, generation) }
        }
    }

    private func openSocket(_ token: Result<String, Error>, _ generation: Int) {
        guard generation == connectGeneration else {
            log(.debug, "an access token arrived for an abandoned attempt (\(generation) of \(connectGeneration))")
            return
        }
        deadlines.tokenRequestedAt = nil
        guard wantsConnection, !stoppedForGood, connection == nil else {
            if connection == nil { setConnectionState(.disconnected) }
            return
        }
        let accessToken: String
        switch token {
        case .success(let t): accessToken = t
        case .failure(let error):
            if let appError = error as? AppError, appError.code == .httpRequestFailed {
                setConnectionState(.disconnected)
                connectionLost("cannot refresh the access token: \(appError.message)")
            } else {
                stopWithError(SyncError(.authenticationFailed, "User \(user.id) cannot sync: \(error)"))
            }
            return
        }
        guard let url = syncURL else {
            stopWithError(SyncError(.connectionFailed, "The app's baseURL does not make a valid sync URL."))
            return
        }
        var tls: SyncTransportTLS?
        if url.scheme == "wss" {
            let configuration = user.appState.configuration
            do { tls = SyncTransportTLS(context: try configuration.tlsContext(), trust: configuration.trustDescription) } catch {
                stopWithError(SyncError(.tlsHandshakeFailed, "Cannot sync '\(file.path)' with \(url): \(error)"))
                return
            }
        }
        decoder = WireFrameDecoder()
        bound = false
        bindSent = false
        let holder = UncheckedBox<(any SyncTransportConnection)?>(nil)
        let conn = transport.connection(to: url, tls: tls) { [weak self] event in
            guard let self else { return }
            self.queue.async {
                guard let conn = holder.value else { return }
                self.handle(event, from: conn, token: accessToken)
            }
        }
        holder.value = conn
        connection = conn
        log(.detail, "opening a WebSocket to \(url)")
        deadlines.connectionStarted()
        conn.connect()
    }

    private func handle(_ event: SyncTransportEvent, from conn: any SyncTransportConnection, token: String) {
        guard conn === connection else { return }
        deadlines.trafficArrived()
        switch event {
        case .opened:
            log(.detail, "WebSocket open; sending bind of session \(sessionNumber + 1)")
            deadlines.socket = nil
            sessionNumber += 1
            let (identity, progress) = (try? file.read { (SyncProgressStore.identity($0), SyncProgressStore.progress($0)) })
                ?? (nil, SyncProgressStore.Progress())
            guard send(.bind(WireBind(session: sessionNumber, appId: user.appState.id, accessToken: token, fileIdentity: identity,
                                      lastIntegratedServerVersion: identity == nil ? 0 : progress.serverVersion,
                                      syncMode: configuration.syncMode))) else {
                connectionLost("the bind could not be written to the new WebSocket")
                return
            }
            bindSent = true
            queries.connectionOpened()
            sendLatestQuery()
        case .message(let bytes):
            do {
                for message in try decoder.feed(bytes) {
                    receive(message)
                    // A message may have ended this connection (a fatal error, a reset).
                    guard conn === connection else { return }
                }
            } catch {
                send(.error(WireErrorMessage(error)))
                connectionLost("the server sent a frame that does not decode: \(error)")
            }
        case .closed(let reason):
            connectionLost(reason ?? "the connection closed")
        case .tlsFailed(let failure) where failure.isPermanent:
            // A certificate that does not verify, or a server without TLS: retrying cannot
            // help, and a session retrying quietly is a sync that silently never happens.
            stopWithError(SyncError(.tlsHandshakeFailed, "Cannot sync '\(file.path)' with \(syncURL?.absoluteString ?? "the server"): \(failure)"))
        case .tlsFailed(let failure):
            connectionLost(failure.description)
        case .upgradeRefused(let refusal) where refusal.isPermanent:
            // A proxy that does not pass the upgrade on, a base URL leading elsewhere: the
            // same answer would come on every retry, which the app would never see.
            stopWithError(SyncError(.connectionFailed, "Cannot sync '\(file.path)' with \(syncURL?.absoluteString ?? "the server"): \(refusal)"))
        case .upgradeRefused(let refusal):
            connectionLost(refusal.description)
        }
    }

    /// Writes a message to the connection; false when there is none to write to.
    @discardableResult
    func send(_ message: WireMessage) -> Bool {
        guard let connection, let bytes = try? WireEncoder().encode(message) else { return false }
        return connection.send(bytes)
    }

    func closeConnection() {
        guard let conn = connection else { return }
        if bound { send(.unbind(WireUnbind(session: sessionNumber))) }
        connection = nil
        bound = false
        bindSent = false
        deadlines.handshake = nil
        deadlines.socket = nil
        downloads.connectionEnded()
        progress.downloadInterrupted()
        setConnectionState(.disconnected)
        conn.close()
    }

    func connectionLost(_ reason: String) {
        log(.detail, "connection lost: \(reason)")
        closeConnection()
        scheduleReconnect()
    }

    /// Schedules the next connection attempt after the backoff (half a second doubling
    /// per failed attempt, up to ``maxBackoff``, ±20 %), unless one is scheduled already.
    func scheduleReconnect(after minimum: TimeInterval = 0) {
        guard wantsConnection, !stoppedForGood, reconnectTimer == nil else { return }
        let delay = max(minimum, min(Self.maxBackoff, 0.5 * pow(2, Double(backoffAttempts))) * Double.random(in: 0.8...1.2))
        // Counted up to the cap only, so that a long outage does not grow it further.
        backoffAttempts = min(backoffAttempts + 1, 16)
        log(.detail, "reconnecting in \(String(format: "%.2f", delay)) s")
        let timer = DispatchWorkItem { [weak self] in
            guard let self else { return }
            reconnectTimer = nil
            connect()
        }
        reconnectTimer = timer
        queue.asyncAfter(deadline: .now() + delay, execute: timer)
    }

    /// Cancels the scheduled reconnect (a connection attempt is starting now).
    func cancelScheduledReconnect() {
        reconnectTimer?.cancel()
        reconnectTimer = nil
    }

    /// Acts on what the connection's deadlines say is due (``ConnectionDeadlines``).
    func checkConnectionHealth() {
        let now = DispatchTime.now()
        switch deadlines.verdict(now: now, hasConnection: connection != nil, bound: bound, tokenTimeout: tokenTimeout) {
        case .nothing:
            break
        case .abandonTokenFetch(let reason):
            // The attempt counts as failed; the fetch's late answer is ignored.
            connectGeneration += 1
            setConnectionState(.disconnected)
            connectionLost(reason)
        case .dropConnection(let reason):
            connectionLost(reason)
        case .ping:
            send(.ping(WirePing(timestamp: now.uptimeNanoseconds / 1_000_000)))
        }
    }
}
