/// Apple's roots: `apple` anonymous attestation (https://www.apple.com/certificateauthority/private/)
/// and App Attest (client attestation of iOS apps).
extension WellKnownRoot {
    /// Apple WebAuthn Root CA (ECDSA P-384).
    ///
    /// Subject `ST=California,O=Apple Inc.,CN=Apple WebAuthn Root CA`, valid 2020-03-18 to 2045-03-15T00:00:00Z,
    /// SHA-256 `0915DD5C07A28DB549D1F677BB5A75D4BFBE9561A773424327762E9E02F9BB29`.
    public static let appleWebAuthnRoot = WellKnownRoot(
        name: "Apple WebAuthn Root CA", formats: ["apple"], notAfter: "2045-03-15T00:00:00Z",
        sha256: "0915DD5C07A28DB549D1F677BB5A75D4BFBE9561A773424327762E9E02F9BB29",
        pem: """
            -----BEGIN CERTIFICATE-----
            MIICEjCCAZmgAwIBAgIQaB0BbHo84wIlpQGUKEdXcTAKBggqhkjOPQQDAzBLMR8w
            HQYDVQQDDBZBcHBsZSBXZWJBdXRobiBSb290IENBMRMwEQYDVQQKDApBcHBsZSBJ
            bmMuMRMwEQYDVQQIDApDYWxpZm9ybmlhMB4XDTIwMDMxODE4MjEzMloXDTQ1MDMx
            NTAwMDAwMFowSzEfMB0GA1UEAwwWQXBwbGUgV2ViQXV0aG4gUm9vdCBDQTETMBEG
            A1UECgwKQXBwbGUgSW5jLjETMBEGA1UECAwKQ2FsaWZvcm5pYTB2MBAGByqGSM49
            AgEGBSuBBAAiA2IABCJCQ2pTVhzjl4Wo6IhHtMSAzO2cv+H9DQKev3//fG59G11k
            xu9eI0/7o6V5uShBpe1u6l6mS19S1FEh6yGljnZAJ+2GNP1mi/YK2kSXIuTHjxA/
            pcoRf7XkOtO4o1qlcaNCMEAwDwYDVR0TAQH/BAUwAwEB/zAdBgNVHQ4EFgQUJtdk
            2cV4wlpn0afeaxLQG2PxxtcwDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2cA
            MGQCMFrZ+9DsJ1PW9hfNdBywZDsWDbWFp28it1d/5w2RPkRX3Bbn/UbDTNLx7Jr3
            jAGGiQIwHFj+dJZYUJR786osByBelJYsVZd2GbHQu209b5RCmGQ21gpSAk9QZW4B
            1bWeT0vT
            -----END CERTIFICATE-----
            """)

    /// Apple App Attestation Root CA (ECDSA P-384), the root of App Attest key attestations
    /// (https://www.apple.com/certificateauthority/Apple_App_Attestation_Root_CA.pem).
    ///
    /// Subject `CN=Apple App Attestation Root CA,O=Apple Inc.,ST=California`, valid 2020-03-18 to
    /// 2045-03-15T00:00:00Z, SHA-256 `1CB9823BA28BA6AD2D33A006941DE2AE4F513EF1D4E831B9F7E0FA7B6242C932`.
    public static let appleAppAttestationRoot = WellKnownRoot(
        name: "Apple App Attestation Root CA", formats: ["apple-appattest"], notAfter: "2045-03-15T00:00:00Z",
        sha256: "1CB9823BA28BA6AD2D33A006941DE2AE4F513EF1D4E831B9F7E0FA7B6242C932",
        pem: """
            -----BEGIN CERTIFICATE-----
            MIICITCCAaegAwIBAgIQC/O+DvHN0uD7jG5yH2IXmDAKBggqhkjOPQQDAzBSMSYw
            JAYDVQQDDB1BcHBsZSBBcHAgQXR0ZXN0YXRpb24gUm9vdCBDQTETMBEGA1UECgwK
            QXBwbGUgSW5jLjETMBEGA1UECAwKQ2FsaWZvcm5pYTAeFw0yMDAzMTgxODMyNTNa
            Fw00NTAzMTUwMDAwMDBaMFIxJjAkBgNVBAMMHUFwcGxlIEFwcCBBdHRlc3RhdGlv
            biBSb290IENBMRMwEQYDVQQKDApBcHBsZSBJbmMuMRMwEQYDVQQIDApDYWxpZm9y
            bmlhMHYwEAYHKoZIzj0CAQYFK4EEACIDYgAERTHhmLW07ATaFQIEVwTtT4dyctdh
            NbJhFs/Ii2FdCgAHGbpphY3+d8qjuDngIN3WVhQUBHAoMeQ/cLiP1sOUtgjqK9au
            Yen1mMEvRq9Sk3Jm5X8U62H+xTD3FE9TgS41o0IwQDAPBgNVHRMBAf8EBTADAQH/
            MB0GA1UdDgQWBBSskRBTM72+aEH/pwyp5frq5eWKoTAOBgNVHQ8BAf8EBAMCAQYw
            CgYIKoZIzj0EAwMDaAAwZQIwQgFGnByvsiVbpTKwSga0kP0e8EeDS4+sQmTvb7vn
            53O5+FRXgeLhpJ06ysC5PrOyAjEAp5U4xDgEgllF7En3VcE3iexZZtKeYnpqtijV
            oyFraWVIyd/dganmrduC1bmTBGwD
            -----END CERTIFICATE-----
            """)
}
