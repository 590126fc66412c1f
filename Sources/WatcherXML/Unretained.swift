// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A reference that does not keep its object alive: the parse's one lifetime rule, stated here once.
///
/// A parse is a few objects calling each other for every element: libxml2's callbacks reach the
/// `XMLStreamParser` (through its capture's `owner`) and the parse's `PullReader` (through the read
/// callback's context), an element's `XMLAttributes` reach the parser for `xml:base`, the format's parser
/// (RSS, Atom) reaches the stream parser for dates, and `XMLFeedReader` calls the format's parser for every
/// start and end. Counted references there were a retain and a release for each call. So each of these
/// references is an `Unretained` (the one counted reference, from the stream parser to its handler, is
/// immutable, and the handler lets go of the stream parser when the parse ends), and the rule is:
///
/// - an `Unretained` is made from an object that something else owns, and it is used only while that owner
///   is running the parse: `XMLStreamParser.parse` owns the parser (its caller holds it) and the
///   `PullReader` (a local of the call); `XMLFeedReader.parser` owns the format's parser, and the format's
///   parser is made by the reader the stream parser calls, during the parse;
/// - nothing keeps an `Unretained` after the parse returns (the types holding one are made for one parse).
///
/// The type itself is the whole of the unsafe part: `with` calls its body with the object, without
/// reference counting. It is `public`, not `package`: its `@inlinable` members were not inlined into the
/// other modules as `package` ones (a call and a closure context for each element, in the binary).
public struct Unretained<Object: AnyObject> {
  @usableFromInline let reference: Unmanaged<Object>

  /// A reference to `object`, which its owner keeps alive while this is used.
  @inlinable @inline(__always)
  public init(_ object: Object) { reference = .passUnretained(object) }

  /// The reference a C callback's context pointer (`opaque` of an `Unretained`) stands for.
  @inlinable @inline(__always)
  init(opaque: UnsafeRawPointer) { reference = .fromOpaque(opaque) }

  /// The pointer handed to C as a callback's context.
  @inlinable @inline(__always)
  var opaque: UnsafeMutableRawPointer { reference.toOpaque() }

  /// Calls `body` with the object.
  ///
  /// Not `rethrows`: through a throwing closure type the compiler no longer inlined `body` into its caller
  /// (a call through a closure context for each element).
  @inlinable @inline(__always)
  public func with<Result>(_ body: (Object) -> Result) -> Result {
    reference._withUnsafeGuaranteedRef(body)
  }
}
