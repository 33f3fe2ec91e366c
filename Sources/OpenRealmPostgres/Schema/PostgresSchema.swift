import PostgresNIO

/// The store's tables in PostgreSQL, as numbered migrations applied in order at start.
///
/// Whichever process starts first applies what is missing; the others wait for it: the
/// whole run is one transaction holding a transaction-scoped advisory lock (DDL is
/// transactional in PostgreSQL, so a run that fails leaves nothing half-made). Each
/// applied migration is recorded in `openrealm_schema_migrations`. A database whose
/// tables are newer than this server knows is refused at start rather than written
/// with an older idea of them.
///
/// Migrations are never edited once released: a change is a new migration.
package enum PostgresSchema {
    /// One step of the tables' history.
    package struct Migration: Sendable {
        package let version: Int
        package let name: String
        package let statements: [String]
    }

    /// The advisory lock key of the migrations (any fixed 64-bit number; this one spells
    /// "ORLMSCHM").
    static let lockKey: Int64 = 0x4F52_4C4D_5343_484D

    /// Every migration, in version order.
    package static let migrations: [Migration] = [
        Migration(version: 1, name: "accounts", statements: [
            // Users of each app; `email` of an email/password user is claimed in
            // openrealm_user_emails (an external provider's email is not).
            """
            CREATE TABLE openrealm_users (
                app_id text NOT NULL,
                id text NOT NULL,
                provider text NOT NULL,
                email text,
                password_hash text,
                email_confirmed boolean NOT NULL DEFAULT false,
                created_at bigint NOT NULL,
                PRIMARY KEY (app_id, id)
            )
            """,
            """
            CREATE TABLE openrealm_user_emails (
                app_id text NOT NULL,
                email text NOT NULL,
                user_id text NOT NULL,
                PRIMARY KEY (app_id, email)
            )
            """,
            """
            CREATE TABLE openrealm_refresh_tokens (
                app_id text NOT NULL,
                id text NOT NULL,
                user_id text NOT NULL,
                expires_at bigint NOT NULL,
                revoked boolean NOT NULL,
                PRIMARY KEY (app_id, id)
            )
            """,
            "CREATE INDEX openrealm_refresh_tokens_by_user ON openrealm_refresh_tokens (app_id, user_id)",
            // API keys: never the key, its SHA-256.
            """
            CREATE TABLE openrealm_api_keys (
                app_id text NOT NULL,
                id text NOT NULL,
                user_id text NOT NULL,
                name text NOT NULL,
                key_hash text NOT NULL,
                disabled boolean NOT NULL,
                created_at bigint NOT NULL,
                PRIMARY KEY (app_id, id),
                UNIQUE (app_id, key_hash),
                UNIQUE (app_id, user_id, name)
            )
            """,
            // Mailed token pairs: the token's SHA-256, never the token.
            """
            CREATE TABLE openrealm_email_tokens (
                app_id text NOT NULL,
                id text NOT NULL,
                user_id text NOT NULL,
                purpose text NOT NULL,
                token_hash text NOT NULL,
                expires_at bigint NOT NULL,
                PRIMARY KEY (app_id, id)
            )
            """,
            "CREATE INDEX openrealm_email_tokens_by_user ON openrealm_email_tokens (app_id, user_id, purpose)",
        ]),
        Migration(version: 2, name: "rate limits", statements: [
            // Token buckets shared by the processes (``PostgresRateLimits``); times are
            // the database's clock, in seconds since the epoch. `full_at`: when the
            // bucket is full again, after which its row may go.
            """
            CREATE TABLE openrealm_rate_limits (
                app_id text NOT NULL,
                key text NOT NULL,
                tokens double precision NOT NULL,
                updated_at double precision NOT NULL,
                full_at double precision NOT NULL,
                PRIMARY KEY (app_id, key)
            )
            """,
            "CREATE INDEX openrealm_rate_limits_by_full_at ON openrealm_rate_limits (app_id, full_at)",
        ]),
        Migration(version: 3, name: "apps", statements: [
            // One row per app: its latest server version, and the row every process
            // locks (`FOR UPDATE`) to write the app's history, so that versions are
            // contiguous and committed in order (``PostgresApp/withWriteLock(_:_:)``).
            """
            CREATE TABLE openrealm_apps (
                app_id text PRIMARY KEY,
                server_version bigint NOT NULL DEFAULT 0
            )
            """,
        ]),
        Migration(version: 4, name: "history and client files", statements: [
            // The floor: the version up to which the history was trimmed.
            "ALTER TABLE openrealm_apps ADD COLUMN history_floor bigint NOT NULL DEFAULT 0",
            // One entry per server version (``HistoryEntry``); empty bytes for none.
            """
            CREATE TABLE openrealm_history (
                app_id text NOT NULL,
                server_version bigint NOT NULL,
                origin_file_ident bigint NOT NULL,
                origin_client_version bigint NOT NULL,
                hlc_milliseconds bigint NOT NULL,
                hlc_counter bigint NOT NULL,
                integrated_at bigint NOT NULL,
                changeset bytea NOT NULL,
                compensation bytea NOT NULL,
                uploaded_list_edits bytea NOT NULL,
                origin_server_version bigint,
                PRIMARY KEY (app_id, server_version)
            )
            """,
            // Client file idents: unique across apps, handed out without the app's lock
            // (a file made while another process integrates does not wait for it).
            "CREATE SEQUENCE openrealm_client_file_idents",
            // Each client file: its identity, what the server integrated of it, the view
            // it completed, its upload record (``UploadRecord``: the hold and 16-byte
            // pairs) and what was sent it whole (``BootstrapCopies``' bytes).
            """
            CREATE TABLE openrealm_client_files (
                app_id text NOT NULL,
                ident bigint NOT NULL,
                salt bigint NOT NULL,
                user_id text NOT NULL,
                last_integrated_client_version bigint NOT NULL DEFAULT 0,
                created_at bigint NOT NULL,
                view_server_version bigint,
                view text,
                last_server_version bigint,
                last_seen_at bigint,
                upload_base bigint,
                uploads bytea NOT NULL DEFAULT '',
                bootstrap_copies bytea NOT NULL DEFAULT '',
                PRIMARY KEY (app_id, ident)
            )
            """,
        ]),
        Migration(version: 5, name: "signing keys", statements: [
            // The masters of the tokens (``PostgresSigningKeys``), shared by every
            // process: the current one (`retired_at` null, at most one) signs, a retired
            // one verifies the tokens it signed.
            """
            CREATE TABLE openrealm_signing_keys (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                key bytea NOT NULL CHECK (octet_length(key) = 32),
                created_at bigint NOT NULL,
                retired_at bigint
            )
            """,
            "CREATE UNIQUE INDEX openrealm_signing_keys_one_current ON openrealm_signing_keys ((retired_at IS NULL)) WHERE retired_at IS NULL",
        ]),
        Migration(version: 6, name: "synced schema", statements: [
            // The synced classes of each app in the order they were made, and their
            // properties in theirs (``PostgresSchemaUnit``); the server's own columns of a
            // class (`__partition`, `__clocks`) are properties too, by their reserved names.
            """
            CREATE TABLE openrealm_classes (
                app_id text NOT NULL,
                name text NOT NULL,
                position integer NOT NULL,
                kind smallint NOT NULL,
                PRIMARY KEY (app_id, name),
                UNIQUE (app_id, position)
            )
            """,
            """
            CREATE TABLE openrealm_properties (
                app_id text NOT NULL,
                class_name text NOT NULL,
                name text NOT NULL,
                position integer NOT NULL,
                type smallint NOT NULL,
                collection smallint NOT NULL,
                optional boolean NOT NULL,
                indexed boolean NOT NULL,
                primary_key boolean NOT NULL,
                link_target text,
                PRIMARY KEY (app_id, class_name, name),
                UNIQUE (app_id, class_name, position),
                FOREIGN KEY (app_id, class_name) REFERENCES openrealm_classes (app_id, name)
            )
            """,
        ]),
        Migration(version: 7, name: "development sync mode", statements: [
            // An app that follows its first client: partition-based (true) or flexible
            // (false) once decided, null before (``PostgresApp`` as `SyncModeStore`).
            "ALTER TABLE openrealm_apps ADD COLUMN development_partitioned boolean",
        ]),
        Migration(version: 8, name: "objects", statements: [
            // Every app's synced top-level objects, one row each (``PostgresObjectRows``):
            // its image (properties with embedded objects and collections, the wire's
            // value encoding), its property clocks, its hidden partition, and its object
            // key (creation order, as ORCore's keys: sets of links are kept in it). `links`
            // names the top-level objects it links to and `link_keys` their keys, so that
            // an erase finds the rows whose links it nulls (the GIN index).
            """
            CREATE TABLE openrealm_objects (
                app_id text NOT NULL,
                class_name text NOT NULL,
                primary_key bytea NOT NULL,
                object_key bigint NOT NULL,
                properties bytea NOT NULL,
                clocks bytea NOT NULL DEFAULT '',
                partition text,
                links bytea[] NOT NULL DEFAULT '{}',
                link_keys bigint[] NOT NULL DEFAULT '{}',
                PRIMARY KEY (app_id, class_name, primary_key)
            )
            """,
            "CREATE INDEX openrealm_objects_by_key ON openrealm_objects (app_id, object_key)",
            "CREATE INDEX openrealm_objects_links ON openrealm_objects USING gin (links)",
            // Per history entry, what its changeset left of the objects it touched
            // (``PostImages``), for processes that fan the version out later; trimmed
            // with the history.
            """
            CREATE TABLE openrealm_post_images (
                app_id text NOT NULL,
                server_version bigint NOT NULL,
                images bytea NOT NULL,
                PRIMARY KEY (app_id, server_version)
            )
            """,
        ]),
    ]

    /// The version this server writes.
    package static var currentVersion: Int { migrations.last?.version ?? 0 }

    /// Applies the missing migrations; returns the version found and the version now.
    ///
    /// - Throws: ``PostgresStoreError`` `schemaTooNew` when the database is ahead of this
    ///   server, or the database's failure (nothing applied).
    @discardableResult
    package static func migrate(_ database: DatabasePool) throws -> (from: Int, to: Int) {
        let location = database.location
        return try database.transaction("migrate the store's tables") { connection in
            try await connection.perform("SELECT pg_advisory_xact_lock(\(lockKey))", logger: database.logger)
            try await connection.perform("""
                CREATE TABLE IF NOT EXISTS openrealm_schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: database.logger)
            var found = 0
            for try await version in try await connection.query(
                "SELECT coalesce(max(version), 0) FROM openrealm_schema_migrations", logger: database.logger).decode(Int.self) {
                found = version
            }
            guard found <= currentVersion else {
                throw PostgresStoreError(.schemaTooNew, "the tables in \(location) are of version \(found), newer than "
                    + "this server's \(currentVersion): run a newer openrealm-server")
            }
            for migration in migrations where migration.version > found {
                for statement in migration.statements {
                    try await connection.perform(PostgresQuery(unsafeSQL: statement), logger: database.logger)
                }
                try await connection.perform(
                    "INSERT INTO openrealm_schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: database.logger)
            }
            return (found, max(found, currentVersion))
        }
    }
}
