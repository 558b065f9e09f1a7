"use client";
/**
 * The first Tab stop of every page: past the nav straight to the page's content (WCAG 2.4.1), visible only while
 * focused. It moves focus itself: following "#content" alone left focus on the link in Chromium, so the next Tab
 * went through the nav again.
 */
export function SkipLink() {
  return (
    <a
      href="#content"
      onClick={(e) => {
        // A page may name its main content more closely (the runs table on the runs page); else <main>.
        const target = document.querySelector<HTMLElement>("main [data-skip-target]") ?? document.getElementById("content");
        if (!target) return;
        e.preventDefault();
        target.focus();
      }}
      className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:text-blue-700 focus:shadow"
    >
      Skip to content
    </a>
  );
}
