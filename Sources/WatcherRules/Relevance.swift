// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// Learning what matters from 👍 and 👎: a local score in [0, 1] for every new item.
///
/// An item is words (of its title and text: single words and pairs of words, their counts dampened and
/// weighted by how rare they are among the items at hand, the vector normalized) and tokens of its fields
/// (each author, each category, the feed) in a block of their own, so that one author or category is not
/// drowned by the words. A logistic regression over those (L2-regularized, balanced between the two kinds
/// of label, trained by Newton's method with conjugate gradients as liblinear does) gives the score. The
/// items being scored take part too, as weak 👎 (most items are not liked): with a few labels that says
/// much more, and with 👎 only the model learns what a 👎 looks like against them and scores the opposite.
/// No network, no model from elsewhere: the labels are the model.
public enum Relevance {
  /// One item as the learner sees it.
  public struct Item: Sendable, Equatable {
    public var title: String
    public var text: String
    public var author: String
    public var categories: [String]
    public var feed: String
    public var link: String

    public init(
      title: String, text: String = "", author: String = "", categories: [String] = [], feed: String = "",
      link: String = ""
    ) {
      self.title = title
      self.text = text
      self.author = author
      self.categories = categories
      self.feed = feed
      self.link = link
    }
  }

  /// A score (or a story's similarity) as shown to people: two decimals.
  public static func shown(_ score: Double) -> String {
    let hundredths = Int((score * 100).rounded())
    return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
  }

  /// Too few labels to say anything: fewer than this many, no score.
  public static let minimumLabels = 5

  /// The weight of an item's field tokens beside its normalized words.
  static let fieldWeight = 0.3
  /// The weight of each unlabelled item (the items being scored) as a 👎, beside both kinds of labels, and
  /// beside 👎 only: chosen on the public relevance set (docs/benchmarks.md).
  static let unlabelledWeight = 0.003
  static let oneKindUnlabelledWeight = 0.03
  /// The inverse regularization strength (liblinear's C), and how long Newton's method runs.
  static let inverseRegularization = 100.0
  static let newtonSteps = 30
  static let cgTolerance = 0.1

  /// Scores for `items` learned from `labeled` (each item with 👍 `true` or 👎 `false`), in [0, 1], or
  /// `nil` when there are fewer than ``minimumLabels`` labels.
  public static func scores(_ items: [Item], labeled: [(Item, Bool)]) -> [Double]? {
    guard let model = train(labeled, background: items) else { return nil }
    return items.map(model.score)
  }

  /// What the labels taught: the words and tokens known, their weights.
  public struct Model: Sendable {
    let vocabulary: Vocabulary
    let idf: [Int: Double]
    let weights: [Double]
    /// Trained on 👎 only: the model says how much an item looks like a 👎, and the score is the opposite.
    let inverted: Bool

    /// The words and fields of `item` that moved its score most, strongest first, each with its weight
    /// (positive: toward 👍): `category 'comedy' +1.92`.
    public func reasons(_ item: Item, count: Int = 3) -> [String] {
      var texts: [UInt64: String] = [:]
      let words = Vocabulary.wordTexts(item.title + " " + item.text)
      for (index, word) in words.enumerated() {
        texts[word.hash] = "'\(word.text)'"
        if index > 0 {
          texts[Vocabulary.pair(words[index - 1].hash, word.hash)] = "'\(words[index - 1].text) \(word.text)'"
        }
      }
      for (kind, values) in [
        ("author", Vocabulary.authors(item.author)), ("category", item.categories), ("feed", [item.feed]),
      ] {
        for value in values where !value.isEmpty {
          let prefix = kind == "category" ? "@cat=" : "@\(kind)="
          texts[Vocabulary.hash(prefix + value.lowercased())] = "\(kind) '\(value)'"
        }
      }
      var moved: [(String, Double)] = []
      let vector = vocabulary.vector(vocabulary.known(item), idf: idf)
      let named = Dictionary(texts.compactMap { hash, text in vocabulary.existing(hash).map { ($0, text) } }) { a, _ in
        a
      }
      for (index, value) in zip(vector.indices, vector.values) where index < weights.count {
        guard let text = named[index] else { continue }
        let effect = value * weights[index] * (inverted ? -1 : 1)
        if effect != 0 { moved.append((text, effect)) }
      }
      return moved.sorted { abs($0.1) > abs($1.1) }.prefix(count).map {
        "\($0.0) \($0.1 >= 0 ? "+" : "−")\(Relevance.shown(abs($0.1)))"
      }
    }

    /// The item's score in [0, 1]; its words and tokens that no label or background item had count nothing.
    public func score(_ item: Item) -> Double {
      let vector = vocabulary.vector(vocabulary.known(item), idf: idf)
      let likely = 1 / (1 + exp(-vector.dot(weights)))
      return inverted ? 1 - likely : likely
    }
  }

  /// The model `labeled` teaches, with `background` (items not labelled: the items to score, or recent
  /// ones) standing in as weak 👎; `nil` below ``minimumLabels`` labels.
  public static func train(_ labeled: [(Item, Bool)], background: [Item] = []) -> Model? {
    guard labeled.count >= minimumLabels else { return nil }
    var vocabulary = Vocabulary()
    let all = labeled.map(\.0) + background
    let documents = all.map { vocabulary.tokens(of: $0) }
    let idf = vocabulary.idf(documents.map(\.words))
    let vectors = documents.map { vocabulary.vector($0, idf: idf) }
    let trained = Array(vectors[0..<labeled.count])
    let unlabelled = Array(vectors[labeled.count...])
    let ups = labeled.map(\.1)
    // Items not labelled are unlabelled evidence: most of them are not liked, so they stand beside the 👎
    // with a small weight (learning from positive and unlabelled examples), which lets a few labels say
    // much more. With 👎 only, the model learns what a 👎 looks like against them, and the score is its
    // opposite.
    let onlyDown = !ups.contains(true)
    let unlabelledWeight =
      ups.contains(true) && ups.contains(false) ? Self.unlabelledWeight : Self.oneKindUnlabelledWeight
    var rows = trained
    var labels = ups.map { $0 != onlyDown ? 1.0 : -1.0 }
    // Each kind of label weighs as much as the other, however few 👍 there are (balanced classes).
    let upCount = Double(labels.count { $0 > 0 })
    let downCount = Double(labels.count) - upCount
    let total = Double(labels.count)
    var weights = labels.map { $0 > 0 ? total / (2 * max(upCount, 1)) : total / (2 * max(downCount, 1)) }
    rows += unlabelled
    labels += [Double](repeating: -1, count: unlabelled.count)
    weights += [Double](repeating: unlabelledWeight, count: unlabelled.count)
    let model = LogisticRegression.train(
      rows, labels: labels, weights: weights, c: inverseRegularization, dimension: vocabulary.count + 1)
    return Model(vocabulary: vocabulary, idf: idf, weights: model, inverted: onlyDown)
  }
}

/// Words and field tokens, each given a number as it is first seen.
struct Vocabulary: Sendable {
  /// Tokens by a 64-bit hash of their text (words, pairs of words and field tokens never need their text
  /// again): no string is made for a word.
  private var ids: [UInt64: Int] = [:]
  var count: Int { ids.count }

  /// An item's word and word-pair counts (by id), and its field tokens.
  struct Document {
    var words: [Int: Double]
    var fields: [Int]
  }

  mutating func id(_ hash: UInt64) -> Int {
    if let id = ids[hash] { return id }
    ids[hash] = ids.count
    return ids.count - 1
  }

  static let offset: UInt64 = 0xcbf2_9ce4_8422_2325
  static let prime: UInt64 = 0x100_0000_01b3

  static func hash(_ text: some StringProtocol, seed: UInt64 = offset) -> UInt64 {
    var hash = seed
    for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* prime }
    return hash
  }

  /// The hash of a pair of words: the first word's hash, a space, then the second's (no text needed).
  static func pair(_ first: UInt64, _ second: UInt64) -> UInt64 { (first ^ 0x20) &* prime &+ second &* 31 }

  /// The authors of a byline: split at commas and " and ", spaces collapsed.
  static func authors(_ byline: String) -> [String] {
    byline.replacing(" and ", with: ",").split(separator: ",")
      .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }.filter { !$0.isEmpty }
  }

  /// The id of a token already known.
  func existing(_ hash: UInt64) -> Int? { ids[hash] }

  /// The words of a text with their hashes, as ``words(_:)`` reads them (for explanations, not for speed).
  static func wordTexts(_ text: String) -> [(hash: UInt64, text: String)] {
    var found: [(UInt64, String)] = []
    var current = String.UnicodeScalarView()
    var length = 0
    func flush() {
      if length >= 2 {
        let word = String(current)
        found.append((hash(word), word))
      }
      current.removeAll(keepingCapacity: true)
      length = 0
    }
    for scalar in text.unicodeScalars {
      let value = scalar.value
      if value < 0x80 {
        let byte = UInt8(value)
        if byte &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10 || byte &- UInt8(ascii: "A") < 26 {
          current.append(Unicode.Scalar(byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte))
          length += 1
        } else {
          flush()
        }
      } else if scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal {
        current.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
        length += 1
      } else {
        flush()
      }
    }
    flush()
    return found
  }

  /// The hashes of the words of a text: runs of two or more letters or digits, lower-cased.
  static func words(_ text: String) -> [UInt64] {
    var words: [UInt64] = []
    var hash = offset
    var length = 0
    func flush() {
      if length >= 2 { words.append(hash) }
      hash = offset
      length = 0
    }
    for scalar in text.unicodeScalars {
      let value = scalar.value
      if value < 0x80 {
        // ASCII: letters and digits by their codes, lower-cased by a bit.
        let byte = UInt8(value)
        if byte &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10 {
          hash = (hash ^ UInt64(byte)) &* prime
          length += 1
        } else if byte &- UInt8(ascii: "A") < 26 {
          hash = (hash ^ UInt64(byte | 0x20)) &* prime
          length += 1
        } else {
          flush()
        }
      } else if scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal {
        for lower in scalar.properties.lowercaseMapping.utf8 { hash = (hash ^ UInt64(lower)) &* prime }
        length += 1
      } else {
        flush()
      }
    }
    flush()
    return words
  }

  mutating func tokens(of item: Relevance.Item) -> Document {
    Self.document(of: item) { id($0) }
  }

  /// The item's document with only the tokens already known (scoring: nothing new is learned).
  func known(_ item: Relevance.Item) -> Document {
    Self.document(of: item) { ids[$0] }
  }

  /// An item's word and word-pair counts and field tokens, each token's id given by `id` (nil: left out).
  static func document(of item: Relevance.Item, id: (UInt64) -> Int?) -> Document {
    var counts: [Int: Double] = [:]
    let words = Self.words(item.title + " " + item.text)
    for (index, word) in words.enumerated() {
      if let id = id(word) { counts[id, default: 0] += 1 }
      // A pair: the first word's hash, a space, then the second's (as its own hash: no text needed).
      if index > 0, let id = id(pair(words[index - 1], word)) { counts[id, default: 0] += 1 }
    }
    // Sublinear term frequency: a word said twice is not twice the evidence.
    counts = counts.mapValues { 1 + log($0) }
    var fields: [Int] = []
    for author in authors(item.author) {
      if let id = id(Self.hash("@author=" + author.lowercased())) { fields.append(id) }
    }
    for category in item.categories where !category.isEmpty {
      if let id = id(Self.hash("@cat=" + category.lowercased())) { fields.append(id) }
    }
    if !item.feed.isEmpty, let id = id(Self.hash("@feed=" + item.feed.lowercased())) { fields.append(id) }
    return Document(words: counts, fields: Array(Set(fields)).sorted())
  }

  /// Smoothed inverse document frequencies (as scikit-learn's TfidfVectorizer: ln((1 + n) / (1 + df)) + 1).
  func idf(_ documents: [[Int: Double]]) -> [Int: Double] {
    var frequency: [Int: Double] = [:]
    for document in documents { for id in document.keys { frequency[id, default: 0] += 1 } }
    let n = Double(documents.count)
    return frequency.mapValues { log((1 + n) / (1 + $0)) + 1 }
  }

  /// The document as one vector: its words' TF-IDF, normalized, then its field tokens, then a constant 1
  /// (the bias, at index `count`).
  func vector(_ document: Document, idf: [Int: Double]) -> Sparse {
    var entries = document.words.map { ($0.key, $0.value * (idf[$0.key] ?? 1)) }
    let norm = sqrt(entries.reduce(0) { $0 + $1.1 * $1.1 })
    if norm > 0 { entries = entries.map { ($0.0, $0.1 / norm) } }
    entries += document.fields.map { ($0, Relevance.fieldWeight) }
    entries.append((count, 1))
    return Sparse(entries)
  }
}

/// A sparse vector: indices and values.
struct Sparse: Sendable {
  var indices: [Int]
  var values: [Double]

  init(_ entries: [(Int, Double)]) {
    indices = []
    values = []
    indices.reserveCapacity(entries.count)
    values.reserveCapacity(entries.count)
    for (index, value) in entries.sorted(by: { $0.0 < $1.0 }) {
      if indices.last == index {
        values[values.count - 1] += value
      } else {
        indices.append(index)
        values.append(value)
      }
    }
  }

  func dot(_ dense: [Double]) -> Double {
    var sum = 0.0
    for (index, value) in zip(indices, values) where index < dense.count { sum += value * dense[index] }
    return sum
  }

  /// Adds `scale` × this vector to `dense`.
  func add(to dense: inout [Double], scale: Double) {
    for (index, value) in zip(indices, values) where index < dense.count { dense[index] += scale * value }
  }

  var norm: Double { sqrt(values.reduce(0) { $0 + $1 * $1 }) }

  func cosine(_ other: Sparse) -> Double {
    var (i, j, sum) = (0, 0, 0.0)
    while i < indices.count, j < other.indices.count {
      if indices[i] == other.indices[j] {
        sum += values[i] * other.values[j]
        i += 1
        j += 1
      } else if indices[i] < other.indices[j] {
        i += 1
      } else {
        j += 1
      }
    }
    let norms = norm * other.norm
    return norms > 0 ? sum / norms : 0
  }

  static func mean(_ vectors: [Sparse]) -> Sparse {
    var sum: [Int: Double] = [:]
    for vector in vectors {
      for (index, value) in zip(vector.indices, vector.values) { sum[index, default: 0] += value }
    }
    let n = Double(max(vectors.count, 1))
    return Sparse(sum.map { ($0.key, $0.value / n) })
  }
}

/// L2-regularized logistic regression, trained by a trust-region-free Newton method: each step solves the
/// Newton system with conjugate gradients (Hessian-vector products over the sparse rows) and backtracks
/// until the objective falls.
enum LogisticRegression {
  static func train(_ rows: [Sparse], labels: [Double], weights: [Double], c: Double, dimension: Int) -> [Double] {
    var w = [Double](repeating: 0, count: dimension)
    func objective(_ w: [Double]) -> Double {
      var value = 0.5 * w.reduce(0) { $0 + $1 * $1 }
      for (index, (row, y)) in zip(rows, labels).enumerated() {
        let z = y * row.dot(w)
        value += c * weights[index] * (z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z)))
      }
      return value
    }
    var current = objective(w)
    for _ in 0..<Relevance.newtonSteps {
      // Gradient and the curvature of each row.
      var gradient = w
      var curvature = [Double](repeating: 0, count: rows.count)
      for (index, (row, y)) in zip(rows, labels).enumerated() {
        let sigma = 1 / (1 + exp(-y * row.dot(w)))
        row.add(to: &gradient, scale: c * weights[index] * (sigma - 1) * y)
        curvature[index] = weights[index] * sigma * (1 - sigma)
      }
      let gradientNorm = sqrt(gradient.reduce(0) { $0 + $1 * $1 })
      if gradientNorm < 1e-4 { break }
      // Conjugate gradients on (I + c Xᵀ D X) s = −g.
      func hessian(_ v: [Double]) -> [Double] {
        var out = v
        for (index, row) in rows.enumerated() { row.add(to: &out, scale: c * curvature[index] * row.dot(v)) }
        return out
      }
      var step = [Double](repeating: 0, count: dimension)
      var residual = gradient.map { -$0 }
      var direction = residual
      var rr = residual.reduce(0) { $0 + $1 * $1 }
      for _ in 0..<200 {
        let hd = hessian(direction)
        let dhd = zip(direction, hd).reduce(0) { $0 + $1.0 * $1.1 }
        guard dhd > 0 else { break }
        let alpha = rr / dhd
        for k in 0..<dimension {
          step[k] += alpha * direction[k]
          residual[k] -= alpha * hd[k]
        }
        let next = residual.reduce(0) { $0 + $1 * $1 }
        if sqrt(next) < Relevance.cgTolerance * gradientNorm { break }
        for k in 0..<dimension { direction[k] = residual[k] + next / rr * direction[k] }
        rr = next
      }
      // Backtracking.
      var scale = 1.0
      var accepted = false
      while scale > 1e-4 {
        let candidate = zip(w, step).map { $0 + scale * $1 }
        let value = objective(candidate)
        if value < current {
          w = candidate
          current = value
          accepted = true
          break
        }
        scale *= 0.5
      }
      if !accepted { break }
    }
    return w
  }
}

extension StringProtocol {
  fileprivate func trimmingCharacters() -> String {
    String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
  }
}
