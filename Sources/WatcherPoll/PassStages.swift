// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Dispatch
import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherRules
import WatcherState
import WatcherSupport

/// One due feed as it travels the stages of a pass: its state and outcome, the response fetched for it,
/// and what the read stage decided.
struct FeedJob: Sendable {
  var feed: FeedConfig
  var state: FeedState
  /// The state as its file held it (with the poll times of `PollTimes`), when there was a file.
  var saved: FeedState?
  /// The state file's bytes, while `state` is without its known items (`PassStages.whole` reads them).
  var stateBytes: Data?
  var outcome: Poller.Outcome
  /// Its state file was corrupt and started again: nothing of it is acted on this pass.
  var restarted = false
  /// Where its outcome goes in the pass's outcomes.
  var position = 0
  /// The HTTP answer (its body taken out, to `PassStages.Bodies`); `nil` for a file.
  var response: Poller.FetchResult?
  /// The digest entries the rules asked for (rule, entry), stored before the state is saved.
  var digestEntries: [(rule: String, entry: Digest.Entry)] = []
  /// What was decided before the actions run (the journal so far, notifications held for quiet hours).
  var prepared: Poller.PreparedPending?
  /// The stories of the new items acted on (key, title, compared link), for the cross-feed check.
  var stories: [(key: String, title: String?, story: String)] = []
  /// The new items to group with other feeds' into stories (`StoryRadar`), with what their spread triggers
  /// will do once their story reaches its feeds.
  var storyItems: [StoryItem] = []

  /// Keeps what the read of its state file leaves for later: the state to compare a save with, and the
  /// file's bytes when its items are still to be read.
  mutating func keep(_ loaded: Result<StateStore.Loaded, StateError>) {
    saved = PassStages.saved(loaded)
    if case .success(let file) = loaded { stateBytes = file.bytes }
  }
}

/// A new item on its way to the story radar: what the radar reads, and the actions of the rules that wait
/// for its story's spread (`match: { story: … }`), not yet recorded.
struct StoryItem: Sendable {
  var item: StoryRadar.Item
  var stored: FeedItem
  var waiting: Decision
}

/// The concurrency of a pass, kept apart from its story in `Poller`: states read on every core, downloads
/// in batches with the next batch fetched meanwhile, states written on every core.
enum PassStages {
  /// How many feeds' states a pass reads at once to schedule them; a pass over more reads the due ones
  /// again, a batch at a time, rather than hold them all.
  static let stateChunk = 512

  /// A due feed, until its batch.
  ///
  /// Its job, or (in a pass over many feeds) where its feed and outcome are, its state to be read again. The
  /// job is boxed: a job is 2.6 KB, and a pass may hold 10,000.
  enum Due {
    indirect case job(FeedJob)
    case later(feed: Int, position: Int)
  }

  /// The state to compare a save with (`saveStates`): a file that was read whole, of a feed polled before
  /// and not started again.
  static func saved(_ loaded: Result<StateStore.Loaded, StateError>) -> FeedState? {
    guard case .success(let file) = loaded, file.restarted == nil, file.state.initialized else { return nil }
    return file.state
  }

  /// The jobs of `pending`, those waiting as `.later` with their states read now, without their items (the
  /// read stage reads a state whole when its poll is more than a 304: `whole`); a state that can no longer be
  /// read leaves its job out, with the error and the job's position in the pass's outcomes.
  static func jobs(
    _ pending: ArraySlice<Due>, feeds: [FeedConfig], outcomes: [Poller.Outcome], directory: String, readOnly: Bool
  ) -> (ready: [FeedJob], unreadable: [(position: Int, error: StateError)]) {
    let later = pending.compactMap { if case .later(let feed, let position) = $0 { (feed, position) } else { nil } }
    let states = loadStates(later.map { feeds[$0.0] }, directory: directory, readOnly: readOnly, keepingBytes: true)
    var loaded = states[...]
    var ready: [FeedJob] = []
    var unreadable: [(position: Int, error: StateError)] = []
    for due in pending {
      guard case .later(let index, let position) = due else {
        if case .job(let job) = due { ready.append(job) }
        continue
      }
      switch loaded.popFirst() ?? nil {
      case .success(let file) where file.restarted == nil:
        var job = FeedJob(feed: feeds[index], state: file.state, outcome: outcomes[position])
        job.position = position
        job.keep(.success(file))
        ready.append(job)
      case .failure(let error):
        unreadable.append((position, error))
      default:
        // Corrupt since it was scheduled (it was moved aside): read again at the next pass, from scratch.
        unreadable.append(
          (
            position,
            .unreadable(path: StateStore.fileName(for: feeds[index].url), reason: "it changed during the pass")
          ))
      }
    }
    return (ready, unreadable)
  }

  /// `job` with its state read whole, when it was read without its items: from the bytes its first read
  /// kept, else from the file.
  ///
  /// A state that has become corrupt since starts again, as at the schedule stage. One that can no longer
  /// be read at all is reported, and stays as it is: it cannot be saved, so its file is left alone.
  static func whole(_ job: FeedJob, directory: String, readOnly: Bool) -> FeedJob {
    guard job.state.itemsSkipped else { return job }
    var job = job
    let loaded = Result { () throws(StateError) in
      if let bytes = job.stateBytes {
        return StateStore.whole(from: bytes, url: job.feed.url, directory: directory, readOnly: readOnly)
      }
      return try StateStore.load(url: job.feed.url, directory: directory, readOnly: readOnly)
    }
    job.stateBytes = nil
    guard case .success(let file) = loaded else {
      if case .failure(let error) = loaded { job.outcome.failures.append(.unreadableState(error)) }
      return job
    }
    job.state = file.state
    job.saved = saved(loaded)
    if let warning = file.restarted {
      job.outcome.warnings.append(warning)
      job.restarted = true
    }
    return job
  }

  /// Every feed's state without its known items (`FeedState.itemsSkipped`), to schedule them, read at once
  /// on every core; `keepingBytes` keeps each file's bytes, for the items of those that turn out due.
  static func loadStates(_ feeds: [FeedConfig], directory: String, readOnly: Bool, keepingBytes: Bool)
    -> [Result<StateStore.Loaded, StateError>?]
  {
    let loaded = Locked([Result<StateStore.Loaded, StateError>?](repeating: nil, count: feeds.count))
    WorkerPool.shared.perform(iterations: feeds.count) { index in
      let result = Result { () throws(StateError) in
        try StateStore.load(
          url: feeds[index].url, directory: directory, readOnly: readOnly, items: false, keepingBytes: keepingBytes)
      }
      loaded.withLock { $0[index] = result }
    }
    return loaded.withLock { $0 }
  }

  /// Every state written at once (each is its own file, and a write mostly waits for the disk); the
  /// directory is synced for states with pending actions.
  ///
  /// A state that differs from its file (`saved`) only in its poll times is not written (`timesOnly`): the
  /// caller records its times with the pass's others, in one file (`PollTimes`).
  static func saveStates(_ states: [(state: FeedState, saved: FeedState?)], directory: String)
    -> [(result: Result<Void, StateError>, timesOnly: Bool)]
  {
    let timesOnly = states.map { state, saved in saved.map { PollTimes.onlyTimesChanged(state, from: $0) } ?? false }
    let saves = Locked([Result<Void, StateError>?](repeating: nil, count: states.count))
    WorkerPool.shared.perform(iterations: states.count) { position in
      guard !timesOnly[position] else { return }
      let state = states[position].state
      let result = Result { () throws(StateError) in
        try StateStore.save(state, directory: directory, syncDirectory: !state.pending.isEmpty)
      }
      saves.withLock { $0[position] = result }
    }
    return zip(saves.withLock { $0 }, timesOnly).map { ($0 ?? .success(()), $1) }
  }

  /// The bodies of a batch's responses, each held once, by its job's slot, so that the parse that takes it
  /// can release it piece by piece while it builds the items.
  final class Bodies: Sendable {
    private let slots: Locked<[[Data]]>

    init(_ slots: [[Data]]) { self.slots = Locked(slots) }

    /// The body of job `index`, taken out of its slot.
    func take(_ index: Int) -> [Data] {
      slots.withLock { slots in
        let body = slots[index]
        slots[index] = []
        return body
      }
    }
  }

  /// Runs `body` on the due feeds batch by batch (so that a pass over 1,000 feeds holds a batch of bodies in
  /// memory, not all of them), each job with its response; the next batch downloads while `body` runs.
  ///
  /// Feeds left unfinished by a stop (a cancelled download, or a file when stopping) are left out, exactly
  /// as they were.
  static func inBatches<Pending>(
    _ jobs: [Pending], size: Int, cancellation: Cancellation?,
    prepare: (ArraySlice<Pending>) -> [FeedJob],
    fetch: (ArraySlice<FeedJob>) -> @Sendable () -> [Poller.FetchResult],
    _ body: (_ batch: [FeedJob], _ bodies: Bodies) -> Void
  ) {
    var next: (batch: [FeedJob], fetched: Prefetch)?
    for start in stride(from: 0, to: jobs.count, by: size) {
      let batch: [FeedJob]
      var fetched: [Poller.FetchResult]
      if let upcoming = next {
        (batch, fetched) = (upcoming.batch, upcoming.fetched.wait())
      } else {
        batch = prepare(jobs[start..<min(jobs.count, start + size)])
        fetched = fetch(batch[...])()
      }
      next = nil
      if start + size < jobs.count {
        let upcoming = prepare(jobs[(start + size)..<min(jobs.count, start + 2 * size)])
        next = (upcoming, Prefetch(fetch(upcoming[...])))
      }
      var ready: [FeedJob] = []
      var bodies: [[Data]] = []
      var http = 0
      for var job in batch {
        var pieces: [Data] = []
        if FeedLocation.isHTTP(job.feed.url) {
          if case .success(var response) = fetched[http] {
            pieces = response.pieces
            response.pieces = []
            fetched[http] = .success(response)
          }
          job.response = fetched[http]
          http += 1
        }
        // Stopping: leave unfinished feeds exactly as they were.
        if case .failure(.cancelled)? = job.response { continue }
        if cancellation?.isCancelled == true, job.response == nil { continue }
        ready.append(job)
        bodies.append(pieces)
      }
      fetched = []
      // Handed over, not copied: the parse releases each body piece by piece only if nothing else holds it.
      body(ready, Bodies(consume bodies))
    }
  }
}

/// One batch's downloads, started on a thread of its own so that they run while the batch before is
/// read, saved and acted on.
final class Prefetch: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  /// Written by the thread before `done` is signalled, read after.
  private var results: [Poller.FetchResult] = []

  init(_ fetch: @escaping @Sendable () -> [Poller.FetchResult]) {
    Threads.spawn(stackSize: 1 << 20) { [self] in
      results = fetch()
      done.signal()
    }
  }

  /// The batch's results, once every download is over.
  func wait() -> [Poller.FetchResult] {
    done.wait()
    return results
  }
}
