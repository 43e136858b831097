/// Apple's root for `apple` anonymous attestation (https://www.apple.com/certificateauthority/private/).
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
}
