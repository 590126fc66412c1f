// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CCurl
import FoundationEssentials
import Glibc
import WatcherSupport

/// POSTs a JSON document to a webhook with libcurl: `Content-Type: application/json`, signed
/// `X-Watcher-Signature: sha256=<HMAC-SHA256 of the body>` when there is a secret, within a timeout, and
/// never following a redirect (a redirect could lead to a more private address; the status is the answer).
public enum WebhookPoster {
  /// What the webhook answered.
  public struct Answer: Sendable, Equatable {
    /// The HTTP status (0 when there was no answer).
    public var status: Int
    /// Why there was no answer, or the start of the body of a refusal.
    public var detail: String?

    /// Whether watcher stopped it (`stop`): nobody's fault, to try again.
    public var cancelled = false

    /// A 2xx answer.
    public var succeeded: Bool { (200..<300).contains(status) }
  }

  /// The signature header's value for `body` under `secret`.
  public static func signature(_ body: [UInt8], secret: String) -> String {
    "sha256=" + SHA256.hex(SHA256.hmac(key: Array(secret.utf8), message: body))
  }

  /// Sends `body` to `url` (http or https only); ends it at once, as cancelled, when `stop` is set (watcher
  /// stopping), and beats the `Heartbeat` while it waits.
  public static func post(
    _ body: [UInt8], to url: String, secret: String?, timeout: Int, userAgent: String, headers extra: [String] = [],
    stop: Cancellation? = nil
  ) -> Answer {
    guard FeedLocation.isHTTP(url) else { return Answer(status: 0, detail: "not an http(s) URL") }
    guard let easy = curl_easy_init() else { return Answer(status: 0, detail: "libcurl could not start") }
    defer { curl_easy_cleanup(easy) }
    let errors = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    errors.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    defer { errors.deallocate() }
    ccurl_setopt_str(easy, CURLOPT_URL, url)
    ccurl_setopt_str(easy, CURLOPT_USERAGENT, userAgent)
    ccurl_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https")
    ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
    ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
    ccurl_setopt_long(easy, CURLOPT_TIMEOUT, max(1, timeout))
    ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT, max(1, min(timeout, 15)))
    ccurl_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errors)
    var list: UnsafeMutablePointer<curl_slist>?
    var lines = ["Content-Type: application/json", "Expect:"] + extra
    if let secret { lines.append("X-Watcher-Signature: " + signature(body, secret: secret)) }
    for line in lines { list = curl_slist_append(list, line) }
    defer { curl_slist_free_all(list) }
    ccurl_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
    ccurl_setopt_long(easy, CURLOPT_POST, 1)
    ccurl_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
    // The answer's body is read and thrown away (its first bytes kept for the message).
    let sink = Sink(stop: stop)
    let me = Unmanaged.passRetained(sink)
    defer { me.release() }
    ccurl_setopt_writefn(easy, CURLOPT_WRITEFUNCTION, sinkWrite)
    ccurl_setopt_ptr(easy, CURLOPT_WRITEDATA, me.toOpaque())
    ccurl_setopt_long(easy, CURLOPT_NOPROGRESS, 0)
    ccurl_setopt_xferinfofn(easy, CURLOPT_XFERINFOFUNCTION, sinkProgress)
    ccurl_setopt_ptr(easy, CURLOPT_XFERINFODATA, me.toOpaque())
    let code = body.withUnsafeBytes { raw -> CURLcode in
      ccurl_setopt_ptr(easy, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress))
      return curl_easy_perform(easy)
    }
    if code == CURLE_ABORTED_BY_CALLBACK {
      return Answer(status: 0, detail: "stopped: watcher is stopping", cancelled: true)
    }
    guard code == CURLE_OK else {
      let reason = String(cString: errors)
      return Answer(status: 0, detail: reason.isEmpty ? String(cString: curl_easy_strerror(code)) : reason)
    }
    var status = 0
    ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
    // Printable ASCII only: it is shown on a terminal and in the journal.
    let text = String(decoding: sink.start.map { (32..<127).contains($0) ? $0 : 32 }, as: UTF8.self)
      .trimming(.spaces)
    return Answer(status: status, detail: text.isEmpty ? nil : text)
  }

}

/// The first bytes of a webhook's answer.
private final class Sink {
  var start: [UInt8] = []
  let stop: Cancellation?

  init(stop: Cancellation?) { self.stop = stop }
}

/// libcurl's progress callback (at least once a second): non-zero ends the transfer.
private func sinkProgress(
  _ user: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t
) -> Int32 {
  Heartbeat.beat()
  guard let user else { return 0 }
  return Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().stop?.isCancelled == true ? 1 : 0
}

private func sinkWrite(
  _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?
)
  -> Int
{
  guard let user, let data else { return 0 }
  let sink = Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
  let bytes = size * count
  if sink.start.count < 200 {
    sink.start += UnsafeRawBufferPointer(start: data, count: min(bytes, 200 - sink.start.count))
  }
  return bytes
}
