"""Fleet's daily quest (Sources/FleetJourneys/DailyQuest.swift) as a Locust FastHttpUser.

The same requests in the same order, with the same headers and bodies, the same clip bytes
(audio-corpus/manifest.json, picked by the session's language and the round, class "speech"),
the same think times and recording pauses, the same polling rule (GET /config's poll policy:
from initial_ms, ×1.5 up to max_ms, give up after give_up_ms) and the same decisions
(fetch_evidence 0.3, rate_feedback 0.5, helpful 0.8). Each user walks one quest and stops, as
Fleet's `per-user-once` model does; bench/peers-journey.sh drives it.

  launch:   POST /auth/anonymous, GET /config, GET /home, think "home"
  session:  POST /sessions {article_id, kind: daily} (Idempotency-Key), think "read",
            POST /sessions/{id}/reading-complete
  round n:  (round 2: think "compress") record (pause = clip duration × time scale),
            POST /sessions/{id}/attempts (Idempotency-Key), PUT the presigned URL with the clip,
            POST /attempts/{id}/submit, poll GET /attempts/{id} until terminal
  round 1:  feedback: poll GET /attempts/{id}/exemplar while pending, 30 % GET /attempts/{id}/audio,
            think "feedback", 50 % POST /assessments/{id}/feedback {helpful}
  settle:   think "complete", POST /sessions/{id}/complete (Idempotency-Key = session id),
            think "back_home", GET /home

Environment: QUEST_USERS (users to wait for before quitting), QUEST_THINK_MS (every think, already
scaled), QUEST_TIME_SCALE (scales the recording pause), QUEST_CORPUS (the corpus directory),
QUEST_OUT (a JSON file: CPU seconds of this process at the first arrival and at the last
completion, quests completed and failed), QUEST_SEED.
"""
import json, os, random, resource, threading, time, uuid

from locust import events, task
from locust.contrib.fasthttp import FastHttpUser
from locust.exception import StopUser
import gevent

USERS = int(os.environ.get("QUEST_USERS", "10"))
THINK_S = float(os.environ.get("QUEST_THINK_MS", "1000")) / 1000
TIME_SCALE = float(os.environ.get("QUEST_TIME_SCALE", "1"))
CORPUS = os.environ.get("QUEST_CORPUS", "audio-corpus")
OUT = os.environ.get("QUEST_OUT", "")
LOCALES = ["en-US", "en-GB", "zh-Hans-CN", "zh-Hans-SG"]
ZONES = ["UTC", "Europe/London", "America/New_York", "Asia/Shanghai", "Asia/Singapore", "+05:30", "-03:00"]
TERMINAL = {"assessed", "failed", "unreliable"}
rng = random.Random(int(os.environ.get("QUEST_SEED", "7")))


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def load_clips():
    manifest = json.load(open(os.path.join(CORPUS, "manifest.json")))
    clips = {}
    for c in manifest["clips"]:
        if c.get("class") != "speech":
            continue
        body = open(os.path.join(CORPUS, c["file"]), "rb").read()
        clips.setdefault((c["language"], c["round"]), []).append((c, body))
    return clips


CLIPS = load_clips()
state = {"first": None, "last": None, "done": 0, "failed": 0, "start_cpu": cpu_seconds(), "lock": threading.Lock()}


def write_out():
    if OUT:
        with open(OUT, "w") as f:
            json.dump({k: v for k, v in state.items() if k != "lock"}, f)


def arrived():
    if state["first"] is None:
        state["first"] = {"cpu": cpu_seconds(), "t": time.time()}


def finished(ok, env):
    state["done" if ok else "failed"] += 1
    state["last"] = {"cpu": cpu_seconds(), "t": time.time()}
    if state["done"] + state["failed"] >= USERS:
        write_out()
        gevent.spawn_later(0.1, env.runner.quit)


@events.quitting.add_listener
def _(environment, **kw):
    write_out()


class QuestFailed(Exception):
    pass


class DailyQuest(FastHttpUser):
    # Think times are explicit sleeps inside the quest, as Fleet's are; no wait between tasks.
    def wait_time(self):
        return 0

    def on_start(self):
        self.install = "inst-%024x" % rng.getrandbits(96)
        self.locale = rng.choice(LOCALES)
        self.zone = rng.choice(ZONES)
        self.token = None
        self.walked = False

    def call(self, method, path, body=None, key=None, name=None):
        headers = {"Accept": "application/json", "Accept-Language": self.locale}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        if body is not None:
            headers["Content-Type"] = "application/json; charset=utf-8"
        if key:
            headers["Idempotency-Key"] = key
        data = json.dumps(body, separators=(",", ":")) if body is not None else ("" if method == "POST" else None)
        with self.client.request(method, path, data=data, headers=headers, name=name or path, catch_response=True) as r:
            if r.status_code // 100 != 2:
                r.failure(f"{r.status_code}")
                raise QuestFailed(f"{method} {name or path}: {r.status_code}")
            r.success()
            return r.json() if r.content else None

    def think(self):
        gevent.sleep(THINK_S)

    @task
    def quest(self):
        if self.walked:
            raise StopUser()
        self.walked = True
        arrived()
        ok = False
        try:
            self.walk()
            ok = True
        except Exception:  # any failure ends this user's quest as failed, as a journey stop does
            pass
        finished(ok, self.environment)
        raise StopUser()

    def walk(self):
        signin = self.call("POST", "/auth/anonymous", {"install_id": self.install, "timezone": self.zone, "locale": self.locale,
                                                       "app_version": "1.4.0", "platform": "ios"})
        self.token = signin["access_token"]
        config = self.call("GET", "/config")
        poll = config.get("poll") or {}
        self.poll_initial = float(poll.get("initial_ms") or 2000) / 1000
        self.poll_max = float(poll.get("max_ms") or 10000) / 1000
        self.poll_give_up = float(poll.get("give_up_ms") or 120000) / 1000
        home = self.call("GET", "/home")
        article = (home.get("today_quest") or {}).get("article_id")
        if not article:
            raise QuestFailed("no quest")
        self.think()
        session = self.call("POST", "/sessions", {"article_id": article, "kind": "daily"}, key=str(uuid.uuid4()))
        sid = session["id"]
        self.think()
        session = self.call("POST", f"/sessions/{sid}/reading-complete", name="/sessions/{id}/reading-complete")
        language = session.get("language") or "en"
        self.round(sid, language, 1)
        self.think()  # compress
        self.round(sid, language, 2)
        self.think()  # complete
        self.call("POST", f"/sessions/{sid}/complete", key=sid, name="/sessions/{id}/complete")
        self.think()  # back_home
        self.call("GET", "/home")

    def round(self, sid, language, n):
        # The corpus is tagged by primary language ("zh" serves "zh-Hans"), as Fleet's pick matches.
        clip, body = rng.choice(CLIPS[(language.split("-")[0].lower(), n)])
        gevent.sleep(min(clip["duration_ms"], 90000) * TIME_SCALE / 1000)
        ticket = self.call("POST", f"/sessions/{sid}/attempts",
                           {"round": n, "sha256": clip["sha256"], "size_bytes": clip["size_bytes"],
                            "content_type": clip["content_type"], "duration_ms": min(clip["duration_ms"], 90000)},
                           key=str(uuid.uuid4()), name="/sessions/{id}/attempts")
        aid, upload = ticket["attempt_id"], ticket["upload"]
        with self.client.request(upload.get("method", "PUT"), upload["url"], data=body, headers=upload.get("headers") or {},
                                 name="PUT upload", catch_response=True) as r:
            if r.status_code // 100 != 2:
                r.failure(f"{r.status_code}")
                raise QuestFailed(f"PUT upload: {r.status_code}")
            r.success()
        attempt = self.call("POST", f"/attempts/{aid}/submit", name="/attempts/{id}/submit")
        accepted, interval = time.monotonic(), self.poll_initial
        while attempt["status"] not in TERMINAL:
            if time.monotonic() - accepted > self.poll_give_up:
                raise QuestFailed("check later")
            gevent.sleep(interval)
            interval = min(self.poll_max, interval * 1.5)
            attempt = self.call("GET", f"/attempts/{aid}", name="/attempts/{id}")
        if attempt["status"] != "assessed":
            raise QuestFailed(f"attempt {attempt['status']}")  # Fleet records the round again; rare on the stack
        if n == 1:
            self.feedback(aid, attempt)

    def feedback(self, aid, attempt):
        started, interval = time.monotonic(), self.poll_initial
        while True:
            ex = self.call("GET", f"/attempts/{aid}/exemplar", name="/attempts/{id}/exemplar")
            if ex.get("status") != "pending" or time.monotonic() - started + interval > self.poll_give_up:
                break
            gevent.sleep(interval)
            interval = min(self.poll_max, interval * 1.5)
        if rng.random() < 0.3:
            try:
                self.call("GET", f"/attempts/{aid}/audio", name="/attempts/{id}/audio")
            except QuestFailed:
                pass  # 410 once expired: the screen shows it, the quest goes on
        self.think()  # feedback
        assessment = (attempt.get("assessment") or {}).get("id")
        if assessment and rng.random() < 0.5:
            try:
                self.call("POST", f"/assessments/{assessment}/feedback", {"helpful": rng.random() < 0.8},
                          name="/assessments/{id}/feedback")
            except QuestFailed:
                pass
