// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed

/// Autodiscovery on pages written the many ways real sites write them.
@Suite("feed autodiscovery")
struct FeedDiscoveryTests {
  static let page = "https://example.org/blog/post.html"

  func urls(_ head: String, page: String = page) -> [String] {
    FeedDiscovery.links(in: "<!DOCTYPE html><html><head>\(head)</head><body></body></html>", pageURL: page).map(\.url)
  }

  @Test("relative, root-relative, protocol-relative and absolute hrefs resolve against the page")
  func resolution() {
    #expect(
      urls(#"<link rel="alternate" type="application/rss+xml" href="feed.xml">"#) == [
        "https://example.org/blog/feed.xml"
      ])
    #expect(
      urls(#"<link rel="alternate" type="application/rss+xml" href="/feed.xml">"#) == ["https://example.org/feed.xml"])
    #expect(
      urls(#"<link rel="alternate" type="application/rss+xml" href="//cdn.example.net/f.xml">"#) == [
        "https://cdn.example.net/f.xml"
      ])
    #expect(
      urls(#"<link rel="alternate" type="application/atom+xml" href="https://feeds.example.com/a">"#) == [
        "https://feeds.example.com/a"
      ])
    #expect(
      urls(#"<link rel="alternate" type="application/rss+xml" href="../up.xml">"#) == ["https://example.org/up.xml"])
  }

  @Test("<base href> (itself relative) decides how later links resolve")
  func base() {
    #expect(
      urls(#"<base href="/news/"><link rel="alternate" type="application/rss+xml" href="rss">"#) == [
        "https://example.org/news/rss"
      ])
    #expect(
      urls(#"<BASE HREF="https://other.example/x/"><link rel=alternate type=application/rss+xml href=f.xml>"#) == [
        "https://other.example/x/f.xml"
      ])
  }

  @Test("attribute case, order, spacing, newlines and quoting do not matter")
  func spelling() {
    let expected = ["https://example.org/f.xml"]
    for head in [
      #"<LINK REL="ALTERNATE" TYPE="APPLICATION/RSS+XML" HREF="/f.xml">"#,
      #"<link href='/f.xml' type='application/rss+xml' rel='alternate' />"#,
      "<link\n  rel = \"alternate\"\n\ttype=\"application/rss+xml\"\n  href=\"/f.xml\"\n/>",
      #"<link rel=alternate type=application/rss+xml href=/f.xml>"#,
      #"<link rel="alternate feed" type="application/rss+xml; charset=UTF-8" href="/f.xml">"#,
      #"<link rel="alternate" type="application/rss+xml" href="  /f.xml  ">"#,
    ] {
      #expect(urls(head) == expected, "\(head)")
    }
  }

  @Test("character references in href are decoded")
  func entities() {
    #expect(
      urls(#"<link rel="alternate" type="application/rss+xml" href="/f?a=1&amp;b=2&#38;c=3">"#) == [
        "https://example.org/f?a=1&b=2&c=3"
      ])
  }

  @Test("several feeds are listed in page order, with types and titles; duplicates once")
  func several() {
    let links = FeedDiscovery.links(
      in: """
        <head><link rel="alternate" type="application/atom+xml" title="Posts" href="/atom">
        <link rel="alternate" type="application/feed+json" href="/feed.json">
        <link rel="alternate" type="application/rss+xml" title="Comments" href="/comments/rss">
        <link rel="alternate" type="application/atom+xml" href="/atom"></head>
        """, pageURL: Self.page)
    #expect(
      links.map(\.url) == [
        "https://example.org/atom", "https://example.org/feed.json", "https://example.org/comments/rss",
      ])
    #expect(links.map(\.type) == ["application/atom+xml", "application/feed+json", "application/rss+xml"])
    #expect(links.map(\.title) == ["Posts", nil, "Comments"])
  }

  @Test("none: other link types, stylesheets, comments, links in the body, a page without links")
  func none() {
    #expect(urls(#"<link rel="stylesheet" href="/s.css"><link rel="alternate" hreflang="de" href="/de/">"#).isEmpty)
    #expect(urls(#"<link rel="icon" type="application/rss+xml" href="/x">"#).isEmpty)
    #expect(urls(#"<!-- <link rel="alternate" type="application/rss+xml" href="/old.xml"> -->"#).isEmpty)
    #expect(urls(#"<link rel="alternate" type="application/rss+xml">"#).isEmpty)
    #expect(urls("").isEmpty)
    let body = #"<html><head></head><body><link rel="alternate" type="application/rss+xml" href="/b.xml"></body>"#
    #expect(FeedDiscovery.links(in: body, pageURL: Self.page).isEmpty)
  }

  @Test("an HTML page is told apart from a feed")
  func looksLikeHTML() {
    #expect(FeedDiscovery.looksLikeHTML(Data("<!doctype html><p>".utf8)))
    #expect(FeedDiscovery.looksLikeHTML(Data("\n<HTML lang=en>".utf8)))
    #expect(!FeedDiscovery.looksLikeHTML(Data("<?xml version=\"1.0\"?><rss version=\"2.0\"></rss>".utf8)))
  }
}
