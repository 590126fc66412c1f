// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CCurl
import FoundationEssentials
import Glibc
import WatcherSupport

/// HTTP(S) through libcurl's multi interface, driven from one thread with `curl_multi_poll` (no busy
/// waiting; docs/design.md, "Platform notes", explains why not URLSession).
///
/// Every transfer: gzip/deflate, at most 5 redirects and only to http/https, a hard timeout and a
/// low-speed abort, the body capped (by Content-Length when known, else while it arrives), a User-Agent with
/// the version, conditional headers. Proxy variables (`https_proxy`…) are honoured by libcurl itself; the
/// redirect rule then judges each hop by its own host (`ProxyEnvironment`).
/// The corresponding C functions are `curl_multi_init`, `curl_multi_add_handle`, `curl_multi_perform`,
/// `curl_multi_poll`, `curl_multi_info_read` and `curl_easy_*`.
public struct CurlTransport: HTTPTransport {
  /// The User-Agent sent.
  public let userAgent: String
  /// Called on the fetching thread as each transfer finishes: (finished, failed, total) so far.
  ///
  /// A failure is a transfer error or an HTTP status of 400 or more.
  public var progress: (@Sendable (_ done: Int, _ failed: Int, _ total: Int) -> Void)?

  /// Creates a transport.
  public init(userAgent: String, progress: (@Sendable (_ done: Int, _ failed: Int, _ total: Int) -> Void)? = nil) {
    self.userAgent = userAgent
    self.progress = progress
  }

  private static let initialized: Bool = {
    curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    return true
  }()

  private static func globalInit() { _ = initialized }

  public func fetch(_ requests: [FetchRequest], concurrency: Int, cancellation: Cancellation?) -> [Result<
    FetchResponse, FetchError
  >] {
    fetch(requests, concurrency: concurrency, cancellation: cancellation, pacer: nil)
  }

  public func fetch(
    _ requests: [FetchRequest], concurrency: Int, cancellation: Cancellation?, pacer: HostPacer?
  ) -> [Result<FetchResponse, FetchError>] {
    // libcurl is loaded at its first call (Sources/CCurl/curl.c): at the first real fetch, not when a
    // command that may read only local files (`extract FILE`, `parse FILE`) makes its transport.
    guard !requests.isEmpty else { return [] }
    Self.globalInit()
    var results = [Result<FetchResponse, FetchError>?](repeating: nil, count: requests.count)
    var done = 0
    var failed = 0
    guard let multi = curl_multi_init() else {
      return requests.map { _ in .failure(.transport("libcurl could not start")) }
    }
    defer { curl_multi_cleanup(multi) }
    var waiting = Array(requests.indices)
    var running: [Int: Transfer] = [:]  // by handle address
    var perHost: [String: Int] = [:]

    // The soonest a request held back by the pacer may start, in milliseconds.
    var pacedFor: Int?
    func start() {
      var index = 0
      pacedFor = nil
      while index < waiting.count, running.count < max(1, concurrency) {
        let requestIndex = waiting[index]
        let host = HostPacer.host(of: requests[requestIndex].url)
        if perHost[host, default: 0] >= 2 {
          index += 1
          continue
        }
        switch pacer?.reserve(host) ?? .start {
        case .start: break
        case .wait(let wait):
          let ms = Int(wait.components.seconds) * 1_000 + Int(wait.components.attoseconds / 1_000_000_000_000_000) + 1
          pacedFor = min(pacedFor ?? ms, ms)
          index += 1
          continue
        case .held(let seconds):
          waiting.remove(at: index)
          results[requestIndex] = .failure(.hostHeld(seconds: seconds))
          continue
        }
        waiting.remove(at: index)
        let transfer = Transfer(index: requestIndex, request: requests[requestIndex], host: host)
        guard let easy = transfer.makeHandle(userAgent: userAgent) else {
          results[requestIndex] = .failure(.transport("libcurl could not create a transfer"))
          continue
        }
        perHost[host, default: 0] += 1
        running[Int(bitPattern: easy)] = transfer
        curl_multi_add_handle(multi, easy)
      }
    }

    start()
    while !running.isEmpty || !waiting.isEmpty {
      if cancellation?.isCancelled == true {
        for index in Self.abandon(running, multi: multi) + waiting { results[index] = .failure(.cancelled) }
        break
      }
      var stillRunning: Int32 = 0
      curl_multi_perform(multi, &stillRunning)
      var queued: Int32 = 0
      while let message = curl_multi_info_read(multi, &queued) {
        guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
        let code = message.pointee.data.result
        if let transfer = running.removeValue(forKey: Int(bitPattern: easy)) {
          let result = transfer.finish(code: code)
          results[transfer.index] = result
          // A host that asks to wait gets nothing more from this process meanwhile (a minute without
          // Retry-After): its other feeds wait too.
          if case .success(let response) = result, response.status == 429 || response.status == 503 {
            pacer?.hold(transfer.host, seconds: min(response.retryAfter ?? 60, 7 * 86_400))
          }
          if let progress {
            done += 1
            if case .success(let response) = result, response.status < 400 {} else { failed += 1 }
            progress(done, failed, requests.count)
          }
          perHost[transfer.host, default: 1] -= 1
          curl_multi_remove_handle(multi, easy)
          curl_easy_cleanup(easy)
          transfer.release()
        }
      }
      start()
      if !running.isEmpty || !waiting.isEmpty {
        // With nothing running, curl_multi_poll waits the whole timeout: the pacer's wait.
        var ready: Int32 = 0
        Heartbeat.beat()  // transfers have their deadlines: waiting on them is progress
        curl_multi_poll(multi, nil, 0, Int32(min(1_000, max(1, pacedFor ?? 1_000))), &ready)
      }
    }
    return results.map { $0 ?? .failure(.transport("internal error: no result, please report")) }
  }

  /// Stops the running transfers (watcher is stopping); their requests' indices.
  private static func abandon(_ running: [Int: Transfer], multi: UnsafeMutableRawPointer) -> [Int] {
    running.values.map { transfer in
      if let easy = transfer.easyHandle {
        curl_multi_remove_handle(multi, easy)
        curl_easy_cleanup(easy)
      }
      transfer.release()
      return transfer.index
    }
  }
}

/// One transfer's state, reached from libcurl's callbacks through an unretained pointer.
private final class Transfer {
  package let index: Int
  package let request: FetchRequest
  package let host: String
  /// The body as it arrives, in pieces of about `FetchResponse.pieceSize`, and its size so far.
  package var pieces: [Data] = []
  package var bodyCount = 0
  package var overflow = false
  package var headers: [(String, String)] = []
  /// The scope of the first address connected to; later hops may not be more private.
  package var firstScope: AddressScope?
  /// The scope of the last address connected to: where the body came from.
  package var lastScope: AddressScope?
  /// The address a redirect was refused for.
  package var refusedAddress: String?
  /// Status lines seen, one per response in the redirect chain, with that response's Location.
  package var hops: [(status: Int, location: String?)] = []
  private var headerList: UnsafeMutablePointer<curl_slist>?
  private var retained: Unmanaged<Transfer>?
  private var handle: UnsafeMutableRawPointer?
  var easyHandle: UnsafeMutableRawPointer? { handle }
  /// libcurl's words for the last error (CURLOPT_ERRORBUFFER).
  private let errorBuffer: UnsafeMutablePointer<CChar> = {
    let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    return buffer
  }()
  /// Header bytes of the response being read; more than `maxHeaderBytes` ends the transfer.
  private var headerBytes = 0
  package var headersTooLarge = false
  /// The most header bytes one response may have (real feeds send 1-4 KB).
  package static let maxHeaderBytes = 64 * 1_024

  /// The URL of the request being made (the current hop of a redirect chain).
  package var currentURL: String? {
    guard let handle else { return nil }
    var effective: UnsafeMutablePointer<CChar>?
    ccurl_getinfo_str(handle, CURLINFO_EFFECTIVE_URL, &effective)
    return effective.map { String(cString: $0) }
  }

  package init(index: Int, request: FetchRequest, host: String) {
    self.index = index
    self.request = request
    self.host = host
  }

  deinit { errorBuffer.deallocate() }

  func makeHandle(userAgent: String) -> UnsafeMutableRawPointer? {
    guard let easy = curl_easy_init() else { return nil }
    handle = easy
    let me = Unmanaged.passRetained(self)
    retained = me
    ccurl_setopt_str(easy, CURLOPT_URL, request.url)
    ccurl_setopt_str(easy, CURLOPT_USERAGENT, request.userAgent ?? userAgent)
    if let netrc = request.netrc {
      ccurl_setopt_long(easy, CURLOPT_NETRC, 1)  // CURL_NETRC_OPTIONAL
      ccurl_setopt_str(easy, CURLOPT_NETRC_FILE, netrc)
    }
    // A cookie file is read, never written: watcher keeps no cookies of its own.
    if let cookies = request.cookies { ccurl_setopt_str(easy, CURLOPT_COOKIEFILE, cookies) }
    if let proxy = request.proxy { ccurl_setopt_str(easy, CURLOPT_PROXY, proxy) }
    ccurl_setopt_str(easy, CURLOPT_ACCEPT_ENCODING, "")
    ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
    ccurl_setopt_long(easy, CURLOPT_MAXREDIRS, 5)
    ccurl_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https")
    ccurl_setopt_str(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
    ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
    ccurl_setopt_long(easy, CURLOPT_TIMEOUT, request.timeout)
    ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT, min(request.timeout, 15))
    ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 64)
    ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, min(request.timeout, 15))
    ccurl_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxBytes))
    var list: UnsafeMutablePointer<curl_slist>?
    list = curl_slist_append(
      list,
      "Accept: application/atom+xml, application/rss+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8"
    )
    if let etag = request.etag { list = curl_slist_append(list, "If-None-Match: \(etag)") }
    if let modified = request.lastModified { list = curl_slist_append(list, "If-Modified-Since: \(modified)") }
    for line in request.headers { list = curl_slist_append(list, line) }
    headerList = list
    ccurl_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
    ccurl_setopt_writefn(easy, CURLOPT_WRITEFUNCTION, transferWrite)
    ccurl_setopt_ptr(easy, CURLOPT_WRITEDATA, me.toOpaque())
    ccurl_setopt_writefn(easy, CURLOPT_HEADERFUNCTION, transferHeader)
    ccurl_setopt_ptr(easy, CURLOPT_HEADERDATA, me.toOpaque())
    ccurl_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer)
    ccurl_setopt_prereqfn(easy, CURLOPT_PREREQFUNCTION, transferConnected)
    ccurl_setopt_ptr(easy, CURLOPT_PREREQDATA, me.toOpaque())
    return easy
  }

  package func release() {
    if let headerList { curl_slist_free_all(headerList) }
    headerList = nil
    retained?.release()
    retained = nil
  }

  /// Takes one header line; false when the response's headers are over the limit.
  package func header(_ line: String) -> Bool {
    headerBytes += line.utf8.count
    if headerBytes > Self.maxHeaderBytes {
      headersTooLarge = true
      return false
    }
    let trimmed = line.trimming()
    if trimmed.hasPrefix("HTTP/") {
      headerBytes = line.utf8.count
      let parts = trimmed.split(separator: " ")
      let status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
      hops.append((status, nil))
      headers = []
      return true
    }
    guard let colon = trimmed.firstIndex(of: ":") else { return true }
    let name = trimmed[..<colon].lowercased()
    let value = trimmed[trimmed.index(after: colon)...].trimming(.spaces)
    headers.append((name, value))
    if name == "location", !hops.isEmpty { hops[hops.count - 1].location = value }
    return true
  }

  package func finish(code: CURLcode) -> Result<FetchResponse, FetchError> {
    guard let easy = handle else { return .failure(.transport("internal error, please report")) }
    let curlMessage = String(cString: errorBuffer)
    // libcurl's own limit on one header line shows as "Out of memory" once a status line has arrived.
    let curlHeaderLimit = code == CURLE_OUT_OF_MEMORY && !hops.isEmpty && bodyCount == 0
    if code != CURLE_OK,
      headersTooLarge || curlHeaderLimit || curlMessage.contains("header") && curlMessage.contains("max")
    {
      return .failure(.headersTooLarge(limit: Self.maxHeaderBytes))
    }
    switch code {
    case CURLE_OK: break
    case CURLE_OPERATION_TIMEDOUT: return .failure(.timeout(seconds: request.timeout))
    case CURLE_FILESIZE_EXCEEDED: return .failure(.tooLarge(limit: request.maxBytes))
    case CURLE_WRITE_ERROR where overflow: return .failure(.tooLarge(limit: request.maxBytes))
    case CURLE_TOO_MANY_REDIRECTS: return .failure(.tooManyRedirects)
    case CURLE_UNSUPPORTED_PROTOCOL where !hops.isEmpty:
      let location = hops.last?.location.map { URLResolver.resolve($0, against: currentURL ?? request.url) }
      return .failure(.forbiddenRedirect(location: location ?? "?"))
    case CURLE_ABORTED_BY_CALLBACK where refusedAddress != nil:
      // Refused at the first hop (nothing was requested), or at a redirect.
      return .failure(
        hops.isEmpty ? .refusedAddress(address: refusedAddress ?? "") : .redirectedInward(address: refusedAddress ?? "")
      )
    // Plain words for what a misbehaving server does most (curl's own say "Transferred a partial file").
    case CURLE_PARTIAL_FILE:
      return .failure(.transport("the connection closed after \(bodyCount) bytes, before the whole response arrived"))
    case CURLE_RECV_ERROR: return .failure(.transport("the connection broke while receiving (reset by the server?)"))
    case CURLE_GOT_NOTHING: return .failure(.transport("the server closed the connection without answering"))
    case CURLE_COULDNT_CONNECT: return .failure(.transport("cannot connect: nothing answers at that address and port"))
    default:
      return .failure(.transport(String(cString: curl_easy_strerror(code))))
    }
    var status = 0
    ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
    var effective: UnsafeMutablePointer<CChar>?
    ccurl_getinfo_str(easy, CURLINFO_EFFECTIVE_URL, &effective)
    let finalURL = effective.map { String(cString: $0) } ?? request.url
    func header(_ name: String) -> String? { headers.last { $0.0 == name }?.1 }
    var response = FetchResponse(status: status, finalURL: finalURL)
    response.scope = lastScope
    response.pieces = pieces
    pieces = []
    response.etag = header("etag")
    response.lastModified = header("last-modified")
    response.mediaType = header("content-type").flatMap {
      $0.split(separator: ";").first?.trimming(.spaces).lowercased()
    }
    if let charset = header("content-type")?.after(caseInsensitive: "charset=") {
      response.charset = charset.split(separator: ";").first.map {
        $0.trimming(.these("\"' "))
      }
    }
    if let retry = header("retry-after") {
      if let seconds = Int(retry) {
        response.retryAfter = min(max(0, seconds), 1_000_000_000)
      } else if let date = DateParser.parse(retry) {
        response.retryAfter = Int(min(max(date.timeIntervalSinceNow, 0), 1e9).rounded(.up))
      }
    }
    if let maxAge = header("cache-control")?.after(caseInsensitive: "max-age=") {
      response.maxAge = Int(maxAge.prefix { $0.isNumber })
    } else if let expires = header("expires").flatMap(DateParser.parse) {
      // `Expires` counts from the server's clock (`Date`), not ours.
      let served = header("date").flatMap(DateParser.parse) ?? Date()
      response.maxAge = Int(min(max(expires.timeIntervalSince(served), 0), 1e9))
    }
    // A chain that starts with permanent redirects: the feed moved to where the last of them points.
    var moved: String?
    var base = request.url
    for hop in hops.dropLast() {
      guard hop.status == 301 || hop.status == 308, let location = hop.location else { break }
      base = URLResolver.resolve(location, against: base)
      moved = base
    }
    response.permanentRedirect = moved
    return .success(response)
  }
}

private let transferWrite: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
  data, size, count, context in
  guard let context, let data else { return 0 }
  let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
  let length = size * count
  if transfer.bodyCount + length > transfer.request.maxBytes {
    transfer.overflow = true
    return 0
  }
  // A large body grows by whole pieces: no reallocation copies it, and it can be released a piece at a time.
  if transfer.pieces.isEmpty || (transfer.pieces.last?.count ?? 0) >= FetchResponse.pieceSize {
    var piece = Data()
    if !transfer.pieces.isEmpty { piece.reserveCapacity(FetchResponse.pieceSize + length) }
    transfer.pieces.append(piece)
  }
  data.withMemoryRebound(to: UInt8.self, capacity: length) {
    transfer.pieces[transfer.pieces.count - 1].append($0, count: length)
  }
  transfer.bodyCount += length
  return length
}

/// Called once a connection is up, before each request of a redirect chain is sent: refuses a hop to an
/// address more private than the first hop's (DNS names are checked as resolved, so rebinding is caught).
private let transferConnected:
  @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int32, Int32
  ) -> Int32 = { context, primary, _, _, _ in
    guard let context, let primary else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    var address = String(cString: primary)
    var scope = AddressScope(address)
    // Behind a proxy the connected address is the proxy's: judge the hop by its own host instead.
    if let url = transfer.currentURL,
      transfer.request.proxy != nil || !ProxyEnvironment.current.isEmpty && ProxyEnvironment.current.isProxied(url)
    {
      scope = ProxyEnvironment.scope(ofHostIn: url)
      address = URLComponents(string: url)?.host ?? url
    }
    transfer.lastScope = scope
    guard let first = transfer.firstScope else {
      if let limit = transfer.request.maxScope, scope > limit {
        transfer.refusedAddress = address
        return 1  // CURL_PREREQFUNC_ABORT
      }
      transfer.firstScope = scope
      return 0
    }
    if scope > first {
      transfer.refusedAddress = address
      return 1  // CURL_PREREQFUNC_ABORT
    }
    return 0
  }

private let transferHeader: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
  data, size, count, context in
  guard let context, let data else { return 0 }
  let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
  let length = size * count
  let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
    String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
  }
  return transfer.header(line) ? length : 0
}
