// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing

/// The shapes real feeds have, replayed through the built binary in both directions: over four polls,
/// nothing old is announced again (no repeat) and every new post is (no loss).
///
/// Each shape gives its posts by number, and how a later fetch changes the old ones (its churn). Poll 1
/// records posts 1–8 silently; polls 2 and 3 each add one post on top of the churned old ones; poll 4 is
/// poll 3 again.
@Suite("Real feed shapes, replayed both ways", .serialized)
struct FeedShapeReplayTests {
  typealias Post = ReplayTests.Post

  struct Shape: Sendable {
    var atom = false
    /// Post `n` as the feed first writes it.
    var post: @Sendable (Int) -> Post
    /// What a later fetch does to the posts already there (`fetch` counts from 1).
    var churn: @Sendable (_ post: Post, _ fetch: Int) -> Post = { post, _ in post }
    /// Whether a later fetch lists the posts in another order.
    var reorder = false
  }

  static func day(_ n: Int, hour: Int = 10) -> String {
    "\(["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][n % 7]), \(n % 28 + 1) Nov 2026 \(hour):00:00 GMT"
  }

  static let shapes: [String: Shape] = [
    "changelog, entries linking to one page with anchors": Shape(post: {
      Post(
        id: "rel-1.\($0)", link: "https://example.org/changelog#v1.\($0)", title: "Version 1.\($0)",
        date: day($0), permalink: false)
    }),
    "status feed, every incident linking to the home page": Shape(post: {
      Post(
        id: "incident-\($0)", link: "https://status.example.org/", title: "Incident \($0)", date: day($0),
        permalink: false)
    }),
    "forum, topics told apart by a query parameter": Shape(post: {
      Post(link: "https://forum.example.org/viewtopic.php?f=2&t=\(1000 + $0)", title: "Topic \($0)", date: day($0))
    }),
    "weekly series under one title": Shape(post: {
      Post(
        id: "https://example.org/weekly/\($0)", link: "https://example.org/weekly/\($0)", title: "This Week",
        date: day($0))
    }),
    "GitHub releases": Shape(
      atom: true,
      post: {
        Post(
          id: "tag:github.com,2008:Repository/4242/v1.\($0)",
          link: "https://github.com/owner/repo/releases/tag/v1.\($0)", title: "v1.\($0)")
      }),
    "YouTube channel": Shape(
      atom: true,
      post: {
        Post(id: "yt:video:vid\($0)x", link: "https://www.youtube.com/watch?v=vid\($0)x", title: "Video \($0)")
      }),
    "podcast whose guids change on every fetch (no link; title and date stay)": Shape(
      post: { Post(id: "ep-\($0)-a", title: "Episode \($0)", date: day($0), permalink: false) },
      churn: { post, fetch in
        var post = post
        post.id = post.id.map { String($0.dropLast(2)) + "-\(fetch)" }
        return post
      }),
    "Mastodon account": Shape(post: {
      Post(
        id: "https://mastodon.example/@me/11\($0)000", link: "https://mastodon.example/@me/11\($0)000",
        title: "Toot \($0)", date: day($0))
    }),
    "Reddit subreddit": Shape(
      atom: true,
      post: {
        Post(
          id: "t3_ab\($0)c", link: "https://www.reddit.com/r/swift/comments/ab\($0)c/post_\($0)/", title: "Thread \($0)"
        )
      }),
    "Hacker News front page (links to other sites, comments as guid)": Shape(post: {
      Post(
        id: "https://news.ycombinator.com/item?id=4\($0)", link: "https://site\($0 % 3).example/article-\($0)",
        title: "Story \($0)", date: day($0), permalink: false)
    }),
    "WordPress (?p=N guids, pretty links)": Shape(post: {
      Post(
        id: "https://blog.example/?p=\($0)", link: "https://blog.example/2026/11/post-\($0)/", title: "Post \($0)",
        date: day($0), permalink: false)
    }),
    "Blogger": Shape(post: {
      Post(
        id: "tag:blogger.com,1999:blog-77.post-\($0)", link: "https://x.blogspot.com/2026/11/post-\($0).html",
        title: "Post \($0)", date: day($0), permalink: false)
    }),
    "Ghost (opaque guids)": Shape(post: {
      Post(
        id: "64f0c\($0)e1a", link: "https://ghost.example/post-\($0)/", title: "Post \($0)", date: day($0),
        permalink: false)
    }),
    "Substack": Shape(post: {
      Post(
        id: "https://x.substack.com/p/post-\($0)", link: "https://x.substack.com/p/post-\($0)",
        title: "Letter \($0)", date: day($0))
    }),
    "Medium (tracking source parameter on links)": Shape(post: {
      Post(
        id: "https://medium.com/p/a\($0)f", link: "https://medium.com/@me/post-\($0)-a\($0)f?source=rss----",
        title: "Story \($0)", date: day($0), permalink: false)
    }),
    "CMS rebuild that re-dates and reorders everything": Shape(
      post: {
        Post(
          id: "https://site.example/n/\($0)", link: "https://site.example/n/\($0)", title: "News \($0)",
          date: day($0))
      },
      churn: { post, fetch in
        var post = post
        post.date = day(20, hour: fetch)
        return post
      }, reorder: true),
    "platform move: new ids and links, same titles and dates": Shape(
      post: {
        Post(
          id: "https://old.example/?p=\($0)", link: "https://old.example/?p=\($0)", title: "Entry \($0)",
          date: day($0), permalink: false)
      },
      churn: { post, _ in
        var post = post
        let number = post.title.split(separator: " ").last ?? ""
        post.id = "https://new.example/entries/entry-\(number)"
        post.link = post.id
        return post
      }),
  ]

  @Test("no repeat and no loss over four polls", arguments: shapes.keys.sorted())
  func replay(_ name: String) throws {
    let shape = try #require(Self.shapes[name])
    let old = (1...8).map(shape.post)
    func later(_ fetch: Int, new: [Int]) -> [Post] {
      // New posts are written as the platform writes them by then (the churn applies to every post).
      let churned = old.map { shape.churn($0, fetch) }
      let added = new.reversed().map { shape.churn(shape.post($0), fetch) }
      return added + (shape.reorder ? churned.reversed() : churned)
    }
    let ninth = shape.churn(shape.post(9), 1).title
    let tenth = shape.churn(shape.post(10), 2).title
    try ReplayTests().replay(
      [
        "feed": [
          ReplayTests.Step(posts: old, atom: shape.atom),
          ReplayTests.Step(posts: later(1, new: [9]), atom: shape.atom, new: ninth),
          ReplayTests.Step(posts: later(2, new: [9, 10]), atom: shape.atom, new: tenth),
          ReplayTests.Step(posts: later(2, new: [9, 10]), atom: shape.atom),
        ]
      ], file: name)
  }
}
