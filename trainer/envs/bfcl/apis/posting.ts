/**
 * TwitterAPI (BFCL "posting"): one account with a password login, tweets keyed by id, comments, retweets and a
 * following list (BFCL func_doc `posting_api.json`).
 */
import { ApiError, initial, list, method, str, type ApiInstance } from "./api-types";
import type { ApiOptions } from "./long-context";

interface Tweet {
  id: number;
  username: string;
  content: string;
  tags: string[];
  mentions: string[];
}

/** Stands for an omitted `mentions` (a string survives the runtime's structuredClone of defaults; a symbol would not). */
const OMITTED = "\u0000mentions omitted";

export function createTwitterApi(config: Record<string, unknown>, options: ApiOptions): ApiInstance {
  const fork = options.fork === "envtuning";
  /**
   * `post_tweet(..., mentions: List[str] = [])` is a Python mutable default in gorilla and EnvTuning: every tweet
   * posted without mentions holds that one list, so `mention()` on one of them shows on all of them and on later
   * ones. Shared here within the episode (what the policy can see); Python shares it across entries of a process
   * too, which no episode can observe and which would make one episode's reward depend on the others' order
   * (docs/environments/bfcl.md).
   */
  const defaultMentions: string[] = [];
  const s = {
    username: initial(config, "username", "john"),
    password: initial(config, "password", "john123"),
    authenticated: initial(config, "authenticated", false),
    tweets: initial<Record<string, Tweet>>(config, "tweets", {}),
    comments: initial<Record<string, { username: string; content: string }[]>>(config, "comments", {}),
    retweets: initial<Record<string, number[]>>(config, "retweets", {}),
    following_list: initial<string[]>(config, "following_list", ["alice", "bob"]),
    tweet_counter: initial(config, "tweet_counter", 0),
  };
  // Python keys tweets by int; JSON object keys are their decimal strings.
  const key = (id: unknown) => String(id);
  const needAuth = (what: string) => (s.authenticated ? null : { error: `User not authenticated. Please authenticate before ${what}.` });
  const missing = (id: unknown) => ({ error: `Tweet with ID ${String(id)} not found.` });

  return {
    className: "TwitterAPI",
    state: () => s,
    methods: {
      authenticate_twitter: method(["username", "password"], (a) => {
        if (a.username === s.username && a.password === s.password) {
          s.authenticated = true;
          return { authentication_status: true };
        }
        return { authentication_status: false };
      }),
      posting_get_login_status: method([], () => ({ login_status: Boolean(s.authenticated) })),
      post_tweet: method(["content", ["tags", []], ["mentions", OMITTED]], (a) => {
        const denied = needAuth("posting");
        if (denied) return denied;
        const tweet: Tweet = {
          id: s.tweet_counter,
          username: s.username,
          content: str(a.content, "content"),
          tags: [...list<string>(a.tags, "tags")],
          mentions: a.mentions === OMITTED ? defaultMentions : [...list<string>(a.mentions, "mentions")],
        };
        s.tweets[key(s.tweet_counter)] = tweet;
        s.tweet_counter += 1;
        return tweet;
      }),
      retweet: method(["tweet_id"], (a) => {
        const denied = needAuth("retweeting");
        if (denied) return denied;
        if (!(key(a.tweet_id) in s.tweets)) return missing(a.tweet_id);
        const mine = (s.retweets[s.username] ??= []);
        if (mine.includes(Number(a.tweet_id))) return { retweet_status: "Already retweeted" };
        mine.push(Number(a.tweet_id));
        return { retweet_status: "Successfully retweeted" };
      }),
      comment: method(["tweet_id", "comment_content"], (a) => {
        const denied = needAuth("commenting");
        // EnvTuning's fork `raise`s this dict, which Python refuses to raise.
        if (denied && fork) throw new ApiError("exceptions must derive from BaseException");
        if (denied) return denied;
        if (!(key(a.tweet_id) in s.tweets)) return missing(a.tweet_id);
        (s.comments[key(a.tweet_id)] ??= []).push({ username: s.username, content: str(a.comment_content, "comment_content") });
        return { comment_status: "Comment added successfully" };
      }),
      mention: method(["tweet_id", "mentioned_usernames"], (a) => {
        const t = s.tweets[key(a.tweet_id)];
        if (!t) return missing(a.tweet_id);
        t.mentions.push(...list<string>(a.mentioned_usernames, "mentioned_usernames"));
        return { mention_status: "Users mentioned successfully" };
      }),
      follow_user: method(["username_to_follow"], (a) => {
        const denied = needAuth("following");
        if (denied) return denied;
        const who = str(a.username_to_follow, "username_to_follow");
        if (s.following_list.includes(who)) return { follow_status: false };
        s.following_list.push(who);
        return { follow_status: true };
      }),
      list_all_following: method(
        [],
        () => needAuth("listing following") ?? (fork ? s.following_list : { following_list: s.following_list }),
      ),
      unfollow_user: method(["username_to_unfollow"], (a) => {
        const denied = needAuth("unfollowing");
        if (denied) return denied;
        const i = s.following_list.indexOf(str(a.username_to_unfollow, "username_to_unfollow"));
        if (i < 0) return { unfollow_status: false };
        s.following_list.splice(i, 1);
        return { unfollow_status: true };
      }),
      get_tweet: method(["tweet_id"], (a) => s.tweets[key(a.tweet_id)] ?? missing(a.tweet_id)),
      get_user_tweets: method(["username"], (a) => Object.values(s.tweets).filter((t) => t.username === a.username)),
      search_tweets: method(["keyword"], (a) => {
        const kw = str(a.keyword, "keyword").toLowerCase();
        return Object.values(s.tweets).filter((t) => t.content.toLowerCase().includes(kw) || t.tags.some((g) => g.toLowerCase() === kw));
      }),
      get_tweet_comments: method(["tweet_id"], (a) =>
        key(a.tweet_id) in s.tweets ? (s.comments[key(a.tweet_id)] ?? []) : missing(a.tweet_id),
      ),
      get_user_stats: method(["username"], (a) => ({
        tweet_count: Object.values(s.tweets).filter((t) => t.username === a.username).length,
        following_count: a.username === s.username ? s.following_list.length : 0,
        retweet_count: (s.retweets[String(a.username)] ?? []).length,
      })),
    },
  };
}
