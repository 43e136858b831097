import Hummingbird

/// `GET /open`: where an app link lands on a phone without the app (docs/contract.md §7). The payload
/// stays in the address; the page says what to do, and never echoes it.
enum OpenPage {
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
          <meta charset="utf-8">
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <title>Open in your authenticator app</title>
          <link rel="icon" href="data:,">
        </head>
        <body>
          <main>
            <h1>Open this link in your authenticator app</h1>
            <p>This link asks an app with UMFA on this phone to register a passkey or to approve a request.
            It opened in the browser, so the app is not installed here, or the link was opened on another device.</p>
            <ol>
              <li>Install the app your service named, or open it if it is installed.</li>
              <li>Scan the QR code again with the app, or open the link again on the phone with the app.</li>
            </ol>
            <p>If you did not ask for this, close this page: nothing happens until the app confirms it.</p>
          </main>
        </body>
        </html>
        """

    static func response() -> Response {
        var response = DemoPageRoutes.response(
            Array(html.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-store")
        response.headers[.contentSecurityPolicy] =
            "default-src 'none'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        return response
    }
}
