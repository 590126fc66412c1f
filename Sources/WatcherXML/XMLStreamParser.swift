// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CLibXML2
internal import CWatcherXML
import FoundationEssentials
import Glibc
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A streaming XML reader on libxml2's SAX2 pull parser, configured to be safe on hostile input.
///
/// Configuration (docs/design.md, "Platform notes"): `XML_PARSE_RECOVER | XML_PARSE_NONET | XML_PARSE_IGNORE_ENC`, never
/// `NOENT` or `DTDLOAD`; the DTD handlers are removed so no entity a document declares is ever recorded or
/// expanded (billion laughs, quadratic blowup and external entities all come to nothing); HTML named
/// entities (`&nbsp;`, `&eacute;`) are resolved through `getEntity`; libxml2 pulls the input as it needs
/// it; each captured field is capped. The input must already be UTF-8 (`InputDecoder`).
/// The corresponding C functions are `xmlCreateIOParserCtxt`, `xmlParseDocument` and `xmlFreeParserCtxt`.
package final class XMLStreamParser {
  /// Held strongly, and immutable, so calling it costs no reference counting per element (through an
  /// `unowned(unsafe)` reference each call was a retain and a release); a handler that keeps this parser
  /// lets go of it when the parse ends (`XMLFeedReader.read`).
  private let handler: any XMLFeedHandler
  private let maxFieldBytes: Int
  fileprivate var ctxt: xmlParserCtxtPtr?
  private var tags = NameTable()
  private var depth = 0
  private var captureDepth = 0
  /// The captured element's text, collected by the C `characters` callback; the SAX user data.
  private let capture: UnsafeMutablePointer<watcher_capture>
  private var bases: [(depth: Int, base: String?)] = []
  private var errorCount = 0
  /// Whether `stop()` was called: the pull source then hands libxml2 no more bytes.
  fileprivate private(set) var stopped = false
  /// The fast reader while it reads (`watcher_fast.h`); nil once libxml2 reads.
  private var fast: OpaquePointer?
  /// The start and end callbacks of the prelude libxml2 reads after the fast reader handed over, skipped:
  /// the handler had them from the fast reader.
  private var preludeStarts = 0
  private var preludeEnds = 0
  /// Problems met so far, in document order.
  package private(set) var warnings: [FeedWarning] = []
  /// The most warnings kept; the rest are counted.
  private let maxWarnings = 50
  /// Writes `&gt;`, `&quot;` and `&apos;` in character data as characters before libxml2 reads them; nil
  /// when the parser reads the document exactly as written (tests compare the two).
  fileprivate var folder: ReferenceFolder?
  /// The shortest run of text the folder decodes itself (`TextRuns`).
  private let minimumRun: Int

  /// The shortest run of text (between two tags) decoded before libxml2 reads the document (`TextRuns`).
  ///
  /// A run cut costs about as much as a hundred bytes of plain text left to libxml2 (docs/benchmarks.md,
  /// "Measurements behind the code").
  package static let defaultMinimumRun = 128

  /// Creates a parser that reports to `handler`; `documentURL` is the base for relative links.
  ///
  /// With `foldsReferences`, references are folded and runs of text from `minimumRun` bytes (0: none) decoded
  /// before libxml2 reads them; without, libxml2 reads the document as written.
  package init(
    handler: any XMLFeedHandler, documentURL: String?, maxFieldBytes: Int, foldsReferences: Bool = true,
    minimumRun: Int = XMLStreamParser.defaultMinimumRun
  ) {
    self.handler = handler
    self.maxFieldBytes = maxFieldBytes
    bases = [(0, documentURL)]
    capture = .allocate(capacity: 1)
    capture.initialize(to: watcher_capture())
    self.minimumRun = minimumRun
    folder = foldsReferences ? ReferenceFolder(minimumRun: minimumRun, capture: capture) : nil
    capture.pointee.limit = maxFieldBytes
    capture.pointee.owner = Unretained(self).opaque
  }

  deinit {
    free(capture.pointee.bytes)
    capture.deallocate()
  }

  /// The `xml:base` in effect for the element being started or ended, resolved.
  var currentBase: String? { bases[bases.count - 1].base }

  /// The current position in the document (1-based line and column).
  package var position: (line: Int, column: Int) {
    if let fast {
      var line = 0
      var column = 0
      watcher_fast_position(fast, &line, &column)
      return (line, column)
    }
    guard let ctxt else { return (0, 0) }
    return (Int(xmlSAX2GetLineNumber(ctxt)), columnAsWritten(Int(xmlSAX2GetColumnNumber(ctxt))))
  }

  /// libxml2's `column` at its current position, as written: with the columns the folded references took.
  private func columnAsWritten(_ column: Int) -> Int {
    guard let folder, let ctxt, column > 0 else { return column }
    let offset = Int(xmlByteConsumed(ctxt))
    return offset < 0 ? column : folder.columnAsWritten(column: column, offset: offset)
  }

  /// Folds the references in the next bytes libxml2 reads, first letting go of what it has read past.
  fileprivate func fold(_ bytes: inout [UInt8]) {
    guard folder != nil else { return }
    if let ctxt, ctxt.pointee.input != nil {
      let offset = Int(xmlByteConsumed(ctxt))
      if offset >= 0 { folder?.settle(offset: offset) }
    }
    folder?.fold(&bytes)
  }

  /// Adds a warning at the current position.
  package func warn(_ message: String) {
    let (line, column) = position
    appendWarning(FeedWarning(line: line, column: column, message: message))
  }

  /// Stops parsing after the current callback (the document's feed element has ended, say).
  package func stop() {
    stopped = true
    capture.pointee.stop = 1
    if let ctxt { xmlStopParser(ctxt) }
  }

  /// Parses the UTF-8 document that `fill` delivers: each call appends the next bytes of it (any number) to
  /// the array it is given, which is empty, and returns whether more may follow.
  ///
  /// libxml2 pulls the bytes as it needs them (its pull parser reads faster than its push parser, which
  /// looks ahead for complete tokens in every chunk). An error `fill` throws (input too large, say) ends
  /// parsing and is rethrown.
  package func parse<Failure: Error>(_ fill: (inout [UInt8]) throws(Failure) -> Bool) throws(Failure) {
    // Only our own handlers: every default SAX2 handler expects the parser context as its user data and
    // would record or resolve DTD entities. With none of them, no entity a document declares is stored,
    // resolved (no `resolveEntity`, no `getParameterEntity`) or expanded.
    var sax = xmlSAXHandler()
    sax.initialized = UInt32(XML_SAX2_MAGIC)
    sax.startElementNs = xmlStartElement
    sax.endElementNs = xmlEndElement
    sax.characters = watcher_capture_characters
    sax.ignorableWhitespace = watcher_capture_characters
    sax.cdataBlock = watcher_capture_characters
    sax.serror = xmlStructuredError
    sax.getEntity = xmlGetEntity

    // The fast reader first (it reads exactly as libxml2 does, or hands over); only when references are
    // folded: without, the document is read by libxml2 alone, as written (tests compare the two).
    var rest: [UInt8] = []
    var more = true
    if folder != nil {
      var done = false
      (done, more) = try readFast(sax, fill: fill, rest: &rest)
      if done { return finishWarnings() }
      // libxml2 reads the prelude and the rest folded, as it would have read the whole document.
      folder = ReferenceFolder(minimumRun: minimumRun, capture: capture)
      folder?.fold(&rest)
    }

    var failure: Failure?
    withoutActuallyEscaping(fill) { fill in
      let source = PullSource(fill: fill)
      source.bytes = rest
      source.more = more
      source.parser = Unretained(self)
      // The SAX user data is the capture struct (which points back to this object), not the parser
      // context: libxml2 then never falls back to its own entity table (`xmlSAX2GetEntity` is only
      // consulted when the user data is the context), so an entity a document declares can never be
      // expanded, whatever libxml2 recorded for "SAX compatibility".
      LibXML2.initialize()
      let sourcePointer = Unretained<PullReader>(source).opaque
      guard
        let context = xmlCreateIOParserCtxt(
          &sax, capture, pullRead, nil, sourcePointer, XML_CHAR_ENCODING_UTF8)
      else {
        warnings.append(FeedWarning(message: "internal error: libxml2 could not create a parser, please report"))
        failure = source.failure
        return
      }
      ctxt = context
      capture.pointee.ctxt = context
      defer {
        if let doc = context.pointee.myDoc { xmlFreeDoc(doc) }
        xmlFreeParserCtxt(context)
        ctxt = nil
        capture.pointee.ctxt = nil
      }
      let options = XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_IGNORE_ENC.rawValue
      xmlCtxtUseOptions(context, Int32(options))
      xmlParseDocument(context)
      failure = source.failure
    }
    if let failure { throw failure }
    finishWarnings()
  }

  private func finishWarnings() {
    if errorCount > maxWarnings {
      warnings.append(FeedWarning(message: "\(errorCount - maxWarnings) more warnings not shown"))
    }
  }

  /// Reads with the fast reader as far as it goes: whether the parse is over, and whether `fill` has more;
  /// when it is not over, `rest` is what libxml2 reads first (the prelude and the bytes not yet read).
  private func readFast<Failure: Error>(
    _ sax: xmlSAXHandler, fill: (inout [UInt8]) throws(Failure) -> Bool, rest: inout [UInt8]
  ) throws(Failure) -> (done: Bool, more: Bool) {
    // Where the reader finds them for as long as it reads.
    let handlers = UnsafeMutablePointer<xmlSAXHandler>.allocate(capacity: 1)
    handlers.initialize(to: sax)
    defer { handlers.deallocate() }
    guard let reader = watcher_fast_new(handlers, capture, watcher_capture_stop(capture)) else { return (false, true) }
    fast = reader
    defer {
      fast = nil
      watcher_fast_free(reader)
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(128 * 1_024)
    var more = true
    var status = Int32(WATCHER_FAST_MORE)
    while status == WATCHER_FAST_MORE {
      bytes.removeAll(keepingCapacity: true)
      more = try fill(&bytes)
      status = bytes.withUnsafeBufferPointer { watcher_fast_feed(reader, $0.baseAddress, $0.count, more ? 0 : 1) }
      if stopped { return (true, more) }
    }
    guard status == WATCHER_FAST_HANDOFF else { return (true, more) }
    var length = 0
    guard let handed = watcher_fast_handoff(reader, &length) else { return (false, more) }
    defer { free(handed) }
    rest = Array(UnsafeBufferPointer(start: handed, count: length))
    preludeStarts = Int(watcher_fast_prelude_starts(reader))
    preludeEnds = Int(watcher_fast_prelude_ends(reader))
    capture.pointee.muted = preludeStarts > 0 ? 1 : 0
    return (false, more)
  }

  private func appendWarning(_ warning: FeedWarning) {
    errorCount += 1
    if errorCount <= maxWarnings { warnings.append(warning) }
  }

  // MARK: - Callbacks (called by the C trampolines below)

  fileprivate func startElement(
    localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?,
    attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
  ) {
    if preludeStarts > 0 {
      preludeStarts -= 1
      if preludeStarts == 0 { capture.pointee.muted = 0 }
      return
    }
    depth += 1
    if captureDepth > 0 {
      appendStartTag(localName: localName, prefix: prefix, attributeCount: attributeCount, attributes: attributes)
      return
    }
    if attributeCount > 0, let attributes {
      for index in 0..<attributeCount {
        let entry = attributes + index * 5
        guard let name = entry[0], let p = entry[1], strcmp(cString(name), "base") == 0,
          strcmp(cString(p), "xml") == 0, let start = entry[3], let end = entry[4]
        else { continue }
        let value = attributeString(UnsafeBufferPointer(start: start, count: end - start))
        bases.append((depth, URLResolver.resolve(value.trimmingASCIIWhitespace, against: currentBase)))
      }
    }
    let tag = tag(localName: localName, prefix: prefix, uri: uri)
    let capture = handler.start(
      tag, attributes: XMLAttributes(base: attributes, count: attributeCount, parser: Unretained(self)))
    if case .none = capture { return }
    captureDepth = depth
    self.capture.pointee.active = 1
    self.capture.pointee.xhtml = capture == .xhtml ? 1 : 0
    self.capture.pointee.count = 0
    self.capture.pointee.truncated = 0
  }

  fileprivate func endElement(
    localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?
  ) {
    if preludeEnds > 0 {
      preludeEnds -= 1
      return
    }
    defer {
      if let last = bases.last, last.depth == depth, bases.count > 1 { bases.removeLast() }
      depth -= 1
    }
    if captureDepth > 0, depth > captureDepth {
      appendEndTag(localName: localName, prefix: prefix)
      return
    }
    let tag = tag(localName: localName, prefix: prefix, uri: uri)
    if captureDepth > 0 {
      captureDepth = 0
      if capture.pointee.truncated != 0 { warn("content longer than \(ByteCount.format(maxFieldBytes)) was cut") }
      let text = capturedText()
      handler.end(tag, text: text)
    } else {
      handler.end(tag, text: nil)
    }
  }

  /// The handler's tag for a name, looked up by the names' addresses (each reader keeps one copy of each
  /// name; an element the fast reader started and libxml2 ended has two).
  private func tag(
    localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?
  ) -> Int {
    let key = NameKey(name: Int(bitPattern: localName), uri: Int(bitPattern: uri), prefix: Int(bitPattern: prefix))
    if let known = tags.find(key) { return known }
    let name = String(cString: cString(localName))
    let namespace = XMLNamespace(
      uri: uri.map { String(cString: cString($0)) }, prefix: prefix.map { String(cString: cString($0)) })
    let tag = handler.tag(for: name, namespace: namespace)
    tags.insert(key, tag)
    return tag
  }

  /// The captured text as a string, and the capture ended (a large buffer is let go).
  private func capturedText() -> String {
    let c = capture
    c.pointee.active = 0
    let bytes = UnsafeBufferPointer(start: c.pointee.bytes, count: c.pointee.count)
    let text =
      if let fixed = InputDecoder.undoDoubleEncoding(bytes) {
        String(utf8Bytes: fixed)
      } else {
        // libxml2's text of input the repairer made valid UTF-8, cut only between characters.
        String(validUTF8: bytes.span)
      }
    if c.pointee.capacity > 65_536 {
      free(c.pointee.bytes)
      c.pointee.bytes = nil
      c.pointee.capacity = 0
    }
    c.pointee.count = 0
    return text
  }

  fileprivate func structuredError(_ error: xmlErrorPtr) {
    let e = error.pointee
    guard e.level != XML_ERR_NONE else { return }
    guard errorCount < maxWarnings else {
      errorCount += 1  // counted, not kept
      return
    }
    var message = e.message.map { String(cString: $0) } ?? "XML error \(e.code)"
    while message.last?.isWhitespace == true { message.removeLast() }
    appendWarning(FeedWarning(line: Int(e.line), column: columnAsWritten(Int(e.int2)), message: message))
  }

  // MARK: - Markup inside captured elements

  private func appendStartTag(
    localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, attributeCount: Int,
    attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
  ) {
    watcher_capture_start_tag(capture, localName, prefix, Int32(attributeCount), attributes)
  }

  private func appendEndTag(localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?) {
    watcher_capture_end_tag(capture, localName, prefix)
  }
}

/// An attribute value as text.
///
/// Without entity substitution (never `XML_PARSE_NOENT`), libxml2 hands over `&amp;` as `&#38;` and leaves HTML
/// entities as written, so references are decoded here.
func attributeString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
  // Both readers hand over values of input the repairer made valid UTF-8, cut only between characters.
  guard bytes.contains(UInt8(ascii: "&")) else { return String(validUTF8: bytes.span) }
  var out: [UInt8] = []
  out.reserveCapacity(bytes.count)
  var i = 0
  while i < bytes.count {
    if bytes[i] == UInt8(ascii: "&"), let (length, scalar) = HTMLEntities.characterReference(buffer: bytes, at: i) {
      InputDecoder.appendUTF8(of: scalar, to: &out)
      i += length
    } else {
      out.append(bytes[i])
      i += 1
    }
  }
  return String(utf8Bytes: out)
}

@inline(__always)
func cString(_ p: UnsafePointer<xmlChar>) -> UnsafePointer<CChar> {
  UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self)
}

/// The parser a SAX callback is for: the user data is its `watcher_capture`, whose `owner` it is.
///
/// The parser outlives every callback (`parse` runs them), so no reference counting is needed per callback
/// (`Unretained`).
@inline(__always)
private func withParser(_ ctx: UnsafeMutableRawPointer?, _ body: (XMLStreamParser) -> Void) {
  guard let capture = ctx?.assumingMemoryBound(to: watcher_capture.self), let owner = capture.pointee.owner else {
    return
  }
  // See `watcher_capture_characters`: libxml2 must go on substituting entity references after an error.
  capture.pointee.ctxt?.pointee.wellFormed = 1
  Unretained<XMLStreamParser>(opaque: owner).with(body)
}

private let xmlStartElement: startElementNsSAX2Func = {
  ctx, localName, prefix, uri, _, _, attributeCount, _, attributes in
  guard let localName else { return }
  withParser(ctx) {
    $0.startElement(
      localName: localName, prefix: prefix, uri: uri, attributeCount: Int(attributeCount), attributes: attributes)
  }
}

private let xmlEndElement: endElementNsSAX2Func = { ctx, localName, prefix, uri in
  guard let localName else { return }
  withParser(ctx) { $0.endElement(localName: localName, prefix: prefix, uri: uri) }
}

private let xmlStructuredError: xmlStructuredErrorFunc = { ctx, error in
  guard let error else { return }
  withParser(ctx) { $0.structuredError(error) }
}

/// Predefined XML entities as usual; otherwise an HTML named entity, made once per process and kept (libxml2
/// 2.9 offers no public way to free one, and there are only 253).
private let xmlGetEntity: getEntitySAXFunc = { ctx, name in
  guard let name else { return nil }
  if let predefined = xmlGetPredefinedEntity(name) { return predefined }
  return HTMLEntities.xmlEntity(named: name)
}

/// What libxml2's read callback calls: `PullSource`, whose generic type the C callback cannot name.
private class PullReader {
  /// Copies up to `count` bytes to `buffer`: how many, 0 at the end, -1 on failure.
  func read(into buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int32 { -1 }
}

/// The bytes libxml2 pulls (`xmlCreateIOParserCtxt`'s read callback): what `fill` appended and libxml2 has
/// not yet taken, and the error `fill` threw, if any.
private final class PullSource<Failure: Error>: PullReader {
  let fill: (inout [UInt8]) throws(Failure) -> Bool
  var bytes: [UInt8] = []
  var offset = 0
  var more = true
  var failure: Failure?
  var parser: Unretained<XMLStreamParser>?

  init(fill: @escaping (inout [UInt8]) throws(Failure) -> Bool) {
    self.fill = fill
    bytes.reserveCapacity(128 * 1_024)
  }

  override func read(into buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int32 {
    // libxml2 reads once for each look-ahead it needs and takes a short read as all there is for now: a
    // construct cut by a short read (an XML declaration, a `<!--`) is misread. So the request is filled
    // whole, from as many fills as it takes; it is short only at the end of the document.
    var copied = 0
    while copied < count {
      if offset == bytes.count {
        guard more, failure == nil, parser?.with({ $0.stopped }) != true else { break }
        bytes.removeAll(keepingCapacity: true)
        offset = 0
        do {
          more = try fill(&bytes)
          parser?.with { $0.fold(&bytes) }
        } catch {
          failure = error
          break
        }
        continue
      }
      let n = min(count - copied, bytes.count - offset)
      bytes.withUnsafeBufferPointer { all in
        guard let base = all.baseAddress else { return }
        UnsafeMutableRawPointer(buffer + copied).copyMemory(from: base + offset, byteCount: n)
      }
      offset += n
      copied += n
    }
    return copied == 0 && failure != nil ? -1 : Int32(copied)
  }
}

/// The read callback; its context is the parse's `PullSource`, kept alive by `parse`.
private let pullRead: xmlInputReadCallback = { context, buffer, length in
  guard let context, let buffer, length > 0 else { return 0 }
  return Unretained<PullReader>(opaque: context).with {
    $0.read(into: buffer, count: Int(length))
  }
}

/// libxml2's global state, set up once before any parser runs.
///
/// libxml2 initializes itself lazily on the first parser, which is not safe when the first two parsers start
/// on two threads at once (feeds are parsed on every core); `xmlInitParser` once, first, is.
package enum LibXML2 {
  private static let initialized: Bool = {
    xmlInitParser()
    // The pull parser stops a document nested deeper than 256 elements with a fatal error, losing every
    // item after it; libxml2 2.9.10 and later parse content without recursion, so depth costs only memory,
    // which the input cap already bounds. (The push parser never checked.)
    watcher_set_max_depth(1 << 30)
    return true
  }()

  /// Initializes libxml2 if it is not yet; safe to call from any thread, any number of times.
  package static func initialize() { _ = initialized }
}
