import Foundation

/// PostgreSQL's statements behind ``SignInStore``: each sign-in step one statement, its rows
/// read with ``PrefixedRow``. SQLite runs the shared statements instead (``SQLStore``).
extension StoreQueries {
    private static let challengeColumns = [
        "challenge", "application_id", "user_id", "ceremony", "user_verification", "userpw_time", "expires_at",
        "allow_credentials", "grant_kind", "enrollment_token_hash",
    ]

    private static func names(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// `table.column AS prefix_column` for each column.
    private static func prefixed(_ table: String, _ columns: [String], as prefix: String) -> [String] {
        columns.map { "\(table).\($0) AS \(prefix)\($0)" }
    }

    static let applicationPrefix = "a_"
    static let challengePrefix = "c_"
    static let credentialPrefix = "k_"

    private static let applicationSelection = prefixed(
        "a", ApplicationRecord.table.columns.map(\.name), as: applicationPrefix)
    private static let credentialSelection = prefixed("k", names(credentialColumns), as: credentialPrefix)

    /// The one row of everything an assertion's verification reads: each table joined on its
    /// key to a row of one, so every part is there or NULL (the application first, so the
    /// statement's metrics label is `SELECT applications`).
    static func assertionReading(_ lookup: AssertionLookup) -> StoreQuery {
        var values: [StoreQuery.Value] = [
            .uuid(lookup.applicationID), .bytes(lookup.challenge), .uuid(lookup.applicationID),
            .text(lookup.ceremony.rawValue), .uuid(lookup.applicationID), .bytes(lookup.credentialID),
        ]
        for key in lookup.abuseKeys { values += [.text(key.counter), .text(key.key)] }
        let counters = lookup.abuseKeys.count
        let sql =
            counters < assertionReadingTexts.count ? assertionReadingTexts[counters] : assertionReadingText(counters)
        return StoreQuery(sql, values)
    }

    /// The texts of ``assertionReading(_:)`` for up to three abuse counters, built once: the
    /// statement runs on every sign-in, and building its 3 KB anew took 2.7 % of the server's
    /// CPU on a PostgreSQL login (`perf record`, `scripts/bench/cpu_bench.py`).
    private static let assertionReadingTexts = (0...3).map(assertionReadingText)

    private static func assertionReadingText(_ counters: Int) -> String {
        var selection =
            applicationSelection + prefixed("c", challengeColumns, as: challengePrefix) + credentialSelection
            + ["u.user_handle AS \(credentialPrefix)owner_user_handle"]
        var joins = [
            "RIGHT JOIN (SELECT 1 AS one) AS one ON a.id = ?",
            "LEFT JOIN challenges c ON c.challenge = ? AND c.application_id = ? AND c.ceremony = ?",
            "LEFT JOIN credentials k ON k.application_id = ? AND k.credential_id = ?",
            "LEFT JOIN users u ON u.application_id = k.application_id AND u.user_id = k.user_id",
        ]
        for index in 0..<counters {
            selection += prefixed("b\(index)", names(abuseCounterColumns), as: "b\(index)_")
            joins.append("LEFT JOIN abuse_counters b\(index) ON b\(index).counter = ? AND b\(index).counter_key = ?")
        }
        return "SELECT \(selection.joined(separator: ", ")) FROM applications a \(joins.joined(separator: " "))"
    }

    /// Consumes the challenge, records the use only when it was there and the sign count is
    /// still the expected one, writes the event only when recorded; answers what each did.
    /// Each part reads the one before through its `RETURNING` rows.
    static func recordAssertion(
        _ lookup: AssertionLookup, credential: StoredCredential, expectedSignCount: UInt32, event: AuditEventRecord
    ) -> StoreQuery {
        let consume = consumeChallenge(lookup.challenge, applicationID: lookup.applicationID, ceremony: lookup.ceremony)
        let use = updateCredentialUse(credential, expectedSignCount: expectedSignCount)
        return StoreQuery(recordAssertionText, consume.values + use.values + auditEventValues(event))
    }

    /// Built once, as ``assertionReadingTexts`` are.
    private static let recordAssertionText = """
        WITH consumed AS (
            DELETE FROM challenges WHERE challenge = ? AND application_id = ? AND ceremony = ? RETURNING challenge),
        used AS (
            UPDATE credentials SET sign_count = ?, backup_state = ?, uv_initialized = ?, last_used_at = ?
            WHERE application_id = ? AND credential_id = ? AND sign_count = ? AND EXISTS (SELECT 1 FROM consumed)
            RETURNING credential_id),
        written AS (
            INSERT INTO audit_events (\(auditEventColumns))
            SELECT \(Array(repeating: "?", count: names(auditEventColumns).count).joined(separator: ", "))
            WHERE EXISTS (SELECT 1 FROM used) RETURNING id)
        SELECT (SELECT count(*) FROM consumed) AS consumed, (SELECT count(*) FROM used) AS used,
            (SELECT count(*) FROM written) AS written
        """

    /// Reads the application, the user's credentials and, for a user without any, the sample
    /// ``CredentialStore/sampleCredentials(applicationID:seed:)`` picks (`sampled` 1), and
    /// stores the challenge with the application's user verification and the user's credential
    /// ids as its `allowCredentials`: a row per credential (one with NULL credential columns when
    /// there is none), none when the application is not there.
    static func issueSignInChallenge(_ request: SignInChallengeRequest) -> StoreQuery {
        let application = StoreQuery.Value.uuid(request.applicationID)
        return StoreQuery(
            issueSignInChallengeText,
            [
                application, application, .text(request.userID), application, .bytes(request.sampleSeed), application,
                application, .bytes(request.challenge), .text(request.userID), .text(request.ceremony.rawValue),
                .date(request.expiresAt),
            ])
    }

    private static let signInSelection = (applicationSelection + credentialSelection + ["k.sampled AS sampled"])
        .joined(separator: ", ")

    /// Built once, as ``assertionReadingTexts`` are.
    private static let issueSignInChallengeText = """
        WITH a AS (SELECT * FROM applications WHERE id = ?),
        own AS (SELECT * FROM credentials WHERE application_id = ? AND user_id = ?),
        owner AS (
            SELECT user_id FROM (
                (SELECT user_id, 0 AS pass FROM credentials WHERE application_id = ? AND credential_id >= ?
                    ORDER BY credential_id LIMIT 1)
                UNION ALL
                (SELECT user_id, 1 AS pass FROM credentials WHERE application_id = ?
                    ORDER BY credential_id LIMIT 1)
            ) AS pick WHERE NOT EXISTS (SELECT 1 FROM own) ORDER BY pass LIMIT 1),
        k AS (
            SELECT *, 0 AS sampled FROM own
            UNION ALL
            SELECT *, 1 AS sampled FROM credentials
            WHERE application_id = ? AND user_id = (SELECT user_id FROM owner)),
        stored AS (
            INSERT INTO challenges (\(challengeColumns.joined(separator: ", ")))
            SELECT ?, a.id, ?, ?, a.user_verification, NULL, ?,
                (SELECT '[' || string_agg('"' || credential_id || '"', ',' ORDER BY created_at, credential_id)
                    || ']' FROM own),
                NULL, NULL
            FROM a
            RETURNING challenge)
        SELECT \(signInSelection), (SELECT count(*) FROM stored) AS stored
        FROM a LEFT JOIN k ON TRUE
        """
}

extension SQLStore {
    func issueSignInChallenge(_ request: SignInChallengeRequest) async throws -> SignInChallengeIssue {
        guard executor.dialect == .postgresql else {
            guard let application = try await application(id: request.applicationID) else {
                return SignInChallengeIssue(application: nil, credentials: [], sample: [])
            }
            let credentials = try await credentials(applicationID: application.id, userID: request.userID)
            let sample =
                credentials.isEmpty
                ? try await sampleCredentials(applicationID: application.id, seed: request.sampleSeed) : []
            try await insertChallenge(
                ChallengeRecord(
                    challenge: request.challenge, applicationID: application.id, userID: request.userID,
                    ceremony: request.ceremony, userVerification: application.userVerification,
                    expiresAt: request.expiresAt, allowCredentials: credentials.map(\.credentialID)))
            return SignInChallengeIssue(application: application, credentials: credentials, sample: sample)
        }
        let rows = try await executor.rows(StoreQueries.issueSignInChallenge(request))
        guard let first = rows.first else { return SignInChallengeIssue(application: nil, credentials: [], sample: []) }
        guard try first.integer("stored") == 1 else {
            throw StoreError(.unavailable, "the sign-in's challenge was not stored")
        }
        var credentials: [StoredCredential] = []
        var sample: [StoredCredential] = []
        for row in rows {
            let credential = PrefixedRow(base: row, prefix: StoreQueries.credentialPrefix)
            guard credential.optionalText("credential_id") != nil else { continue }
            if try row.integer("sampled") == 0 {
                credentials.append(try StoredCredential(row: credential))
            } else {
                sample.append(try StoredCredential(row: credential))
            }
        }
        return SignInChallengeIssue(
            application: try ApplicationRecord(row: PrefixedRow(base: first, prefix: StoreQueries.applicationPrefix)),
            credentials: Self.oldestFirst(credentials), sample: Self.oldestFirst(sample))
    }

    func assertionReading(_ lookup: AssertionLookup) async throws -> AssertionReading {
        guard executor.dialect == .postgresql else {
            let owned = try await credentialWithOwnerHandle(
                applicationID: lookup.applicationID, credentialID: lookup.credentialID)
            return AssertionReading(
                application: try await application(id: lookup.applicationID),
                challenge: try await executor.rows(
                    StoreQueries.challenge(
                        lookup.challenge, applicationID: lookup.applicationID, ceremony: lookup.ceremony)
                ).first.map { try ChallengeRecord(row: $0) },
                credential: owned?.credential, ownerHandle: owned?.ownerHandle,
                abuseCounters: try await abuseCounters(lookup.abuseKeys))
        }
        guard let row = try await executor.rows(StoreQueries.assertionReading(lookup)).first else {
            throw StoreError(.unavailable, "the sign-in's reading returned no row")
        }
        let application = PrefixedRow(base: row, prefix: StoreQueries.applicationPrefix)
        let challenge = PrefixedRow(base: row, prefix: StoreQueries.challengePrefix)
        let credential = PrefixedRow(base: row, prefix: StoreQueries.credentialPrefix)
        let ownerHandle = try credential.optionalText("owner_user_handle").map(StoredValue.bytes)
        return AssertionReading(
            application: try application.optionalText("id").map { _ in try ApplicationRecord(row: application) },
            challenge: try challenge.optionalText("challenge").map { _ in try ChallengeRecord(row: challenge) },
            credential: try credential.optionalText("credential_id").flatMap { _ in
                ownerHandle == nil ? nil : try StoredCredential(row: credential)
            },
            ownerHandle: ownerHandle,
            abuseCounters: try lookup.abuseKeys.indices.compactMap { index in
                let counter = PrefixedRow(base: row, prefix: "b\(index)_")
                return try counter.optionalText("counter").map { _ in try AbuseCounterRecord(row: counter) }
            })
    }

    func recordAssertion(
        _ lookup: AssertionLookup, credential: StoredCredential, expectedSignCount: UInt32, event: AuditEventRecord
    ) async throws -> AssertionRecording {
        guard executor.dialect == .postgresql else {
            // SQLite: the three statements in turn, on the caller's thread (a transaction runs on
            // the connection's own thread, a hop that cost a sign-in about a fifth of its CPU,
            // scripts/bench.sh --cpu). The consume is the single-use gate, the compare is in the
            // update; an event the store refuses fails the sign-in, its use recorded.
            guard
                try await consumeChallenge(
                    lookup.challenge, applicationID: lookup.applicationID, ceremony: lookup.ceremony) != nil
            else { return .challengeUsed }
            guard try await updateCredentialUse(credential, expectedSignCount: expectedSignCount) else {
                return .signCountMoved
            }
            try await insertAuditEvent(event)
            return .recorded
        }
        let query = StoreQueries.recordAssertion(
            lookup, credential: credential, expectedSignCount: expectedSignCount, event: event)
        guard let row = try await executor.rows(query).first else {
            throw StoreError(.unavailable, "the sign-in's record returned no row")
        }
        if try row.integer("consumed") == 0 { return .challengeUsed }
        return try row.integer("used") == 0 ? .signCountMoved : .recorded
    }
}
