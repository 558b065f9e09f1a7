import { SkipLink } from "@/components/layout/skip-link";
import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { TrpcReactProvider } from "@/components/providers/trpc-provider";
import { KeyboardHelp } from "@/components/providers/keyboard-help";
import { ThemeToggle } from "@/components/providers/theme-toggle";
import { THEME_BOOT_SCRIPT } from "@/lib/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: "Rollout Lab",
  description: "Run and inspect GRPO training of LLM agents in simulated multi-turn environments.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The boot script sets the theme class before React hydrates: the class is expected to differ.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body className="min-h-screen font-sans">
        <SkipLink />
        <header className="border-b border-slate-200 bg-white">
          {/* Wraps on a phone instead of widening the page. */}
          <nav className="mx-auto flex max-w-[1920px] flex-wrap items-center gap-x-4 gap-y-1 px-4 py-3 text-sm sm:gap-x-6">
            <Link href="/runs" className="font-semibold text-slate-900">
              Rollout Lab
            </Link>
            {[
              ["/runs", "Runs"],
              ["/runs/new", "Launch"],
              ["/runs/import", "Import"],
              ["/compare", "Compare"],
              ["/environments", "Environments"],
              ["/settings", "Settings"],
            ].map(([href, label]) => (
              <Link key={href} href={href} className="text-slate-600 hover:text-slate-900">
                {label}
              </Link>
            ))}
            <ThemeToggle />
          </nav>
        </header>
        <TrpcReactProvider>
          <main id="content" tabIndex={-1} className="mx-auto max-w-[1920px] px-4 py-6 focus:outline-none">
            {children}
          </main>
          <KeyboardHelp />
        </TrpcReactProvider>
      </body>
    </html>
  );
}
