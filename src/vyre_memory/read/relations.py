"""The fixed vocabulary of personal-fact relations and the word lists the rule reader uses.

Guarantees: every relation a rule may emit is in `RELATIONS`; the word lists are general
knowledge (English kinship terms with their common synonyms, and the everyday ones of a few widely
spoken languages; car makes, tool categories, common English words),
never a name, place or phrase taken from any evaluation world. Pure data and pure helpers.
"""

from __future__ import annotations

import re


def words(s: str) -> frozenset[str]:
    """A frozenset of the whitespace-separated words of `s`."""
    return frozenset(s.split())


# Relations from the user to a person (object = the person's name).
PEOPLE_RELATIONS = words(
    "wife husband partner fiance son daughter child mother father sister brother nephew niece aunt uncle cousin "
    "grandmother grandfather friend family_friend neighbour boss colleague client doctor roommate"
)
# Facts about a thing or place (object = the value as written).
THING_RELATIONS = words(
    "pet pet_kind phone lives_in moved_to grew_up_in home_city lives_with car laptop employer job_title school teacher "
    "birthday anniversary allergy likes occupation hobby schedule called holiday_in"
)
# Read by the rules only (the model reader is not asked for them): "turns 80", "2nd grade", "sam and i got married".
RULE_RELATIONS = words("age grade spouse")
RELATIONS = PEOPLE_RELATIONS | THING_RELATIONS | RULE_RELATIONS

# Relations whose value changes over time: the newest statement wins.
CHANGING = words(
    "lives_in moved_to home_city car laptop employer job_title school teacher schedule occupation boss age grade"
)

# Kinship and people words -> relation; multilingual kinship words are general vocabulary.
KIN: dict[str, str] = {}
for _rel, _ws in {
    "wife": "wife wifey missus frau femme esposa moglie vrou vrouw żona patni vaimo",
    "husband": "husband hubby mann mari esposo marido marito mąż ehemann",
    "partner": "partner spouse girlfriend boyfriend gf bf namorada namorado novia novio fidanzata fidanzato",
    "fiance": "fiance fiancé fiancee fiancée",
    "son": "son sohn fils hijo filho figlio zoon musuko adeul poika",
    "daughter": "daughter tochter fille hija filha figlia dochter dogter musume córka tytär",
    "child": "kid kiddo child baby",
    "mother": "mother mom mum mommy mummy mama mamma ma maman mamá mãe "
        "mutter mère madre mammy omma eomma ammi maa okaasan äiti",
    "father": "father dad daddy papa pa pop papá pai vater père padre appa abbu otousan isä",
    "sister": "sister sis schwester sœur hermana irmã sorella zus siostra noona unni eonni behen",
    "brother": "brother bro bruder frère hermano irmão fratello broer boet hyung hyeong oppa bhai bhaiya kuya",
    "nephew": "nephew neffe",
    "niece": "niece nichte",
    "aunt": "aunt auntie aunty tante tía",
    "uncle": "uncle onkel tío",
    "cousin": "cousin",
    "grandmother": "grandma grandmother granny nana gran oma abuela avó vovó "
        "nonna ouma babcia halmeoni obaachan mormor farmor mummo",
    "grandfather": "grandpa grandfather gramps grandad granddad opa abuelo avô "
        "vovô nonno oupa dziadek harabeoji ojiichan morfar farfar ukki",
    "friend": "friend buddy pal mate bestie bff",
    "neighbour": "neighbour neighbor",
    "boss": "boss manager lead supervisor",
    "colleague": "colleague coworker co-worker teammate",
    "client": "client customer",
    "doctor": "doctor dentist gp therapist physio pediatrician paediatrician",
    "roommate": "roommate flatmate housemate",
}.items():
    for _w in _ws.split():
        KIN[_w] = _rel
KIN["better half"] = "partner"  # two words, so not in the table above ("my other half" is as often half the work)

PARTNER_RELATIONS = frozenset({"wife", "husband", "partner", "fiance"})  # a person's partner, by any word

MALE = words(
    "husband hubby son father dad daddy papa pa pop brother bro nephew uncle grandpa grandfather gramps grandad "
    "granddad appa abbu hyung hyeong oppa bhai boet oupa he him his"
)
FEMALE = words(
    "wife wifey missus daughter mother mom mum mommy mama sister sis niece aunt auntie aunty grandma grandmother gran "
    "granny nana mammy omma eomma noona unni eonni ouma she her hers"
)
GENDERED = {"child": ("son", "daughter")}

# Words a question may use for several stored relations at once ("my spouse" is a wife, husband or partner).
RELATION_GROUPS: dict[str, frozenset[str]] = {
    "spouse": words("wife husband partner"),
    "parent": words("mother father"),
    "sibling": words("brother sister"),
    "grandparent": words("grandmother grandfather"),
}

# Relations whose facts often answer a question about another of them, for finding the turns they were read from
# (never for answering): "my wife" is the partner the person named, "where do I live" where they moved to.
ALIKE: tuple[frozenset[str], ...] = (RELATION_GROUPS["spouse"], words("lives_in moved_to home_city"))

PETS: dict[str, str] = {
    w: kind
    for kind, ws in {
        "dog": "dog pup puppy doggo hund perro chien dachshund labrador retriever terrier "
        "spaniel poodle beagle collie corgi husky pug",
        "cat": "cat kitten kitty katze gato",
        "rabbit": "rabbit bunny",
        "hamster": "hamster",
        "guinea pig": "guinea-pig",
        "parrot": "parrot budgie",
        "horse": "horse pony",
        "fish": "fish goldfish",
        "tortoise": "tortoise turtle",
        "snake": "snake",
        "lizard": "lizard gecko",
    }.items()
    for w in ws.split()
}
PET_BREEDS = words("dachshund labrador retriever terrier spaniel poodle beagle collie corgi husky pug")

CAR_MAKES = words(
    "acura alfa audi bmw buick byd cadillac chevy chevrolet chrysler citroen citroën cupra dacia dodge fiat ford "
    "genesis gmc honda hyundai infiniti jaguar jeep kia lada lexus lincoln mazda mercedes mini mitsubishi nissan "
    "opel peugeot polestar porsche ram renault rivian saab seat skoda škoda smart subaru suzuki tesla toyota "
    "vauxhall volkswagen vw volvo"
)
# makes that are words too ("a seat cover", "ram 32gb", "a mini pc", "the dodge ball"): a car only with a model after
AMBIGUOUS_MAKES = words("seat smart mini ram genesis lincoln dodge ford jaguar lada rivian polestar")
# Car models said without their make ("picked up the prius today"), by make: only models that are no common word,
# place, first name or name in code ("golf", "focus", "civic", "tundra", "tacoma", "sienna", "astra", "i30" are left
# out). General knowledge only.
CAR_MODELS = words(
    "prius corolla camry yaris rav4 auris aygo hilux c-hr "  # toyota
    "cr-v crv hr-v hrv "  # honda
    "octavia kodiaq karoq enyaq kamiq "  # skoda
    "passat tiguan jetta touareg touran "  # volkswagen
    "mondeo kuga f-150 f150 "  # ford
    "qashqai altima sentra micra "  # nissan
    "elantra ioniq sportage sorento ceed niro picanto "  # hyundai, kia
    "cx-5 cx5 cx-30 mx-5 miata impreza crosstrek wrx "  # mazda, subaru
    "silverado captur corsa sandero xc40 xc60 xc90 pajero vitara jimny"  # chevrolet, renault, opel, dacia, volvo, ...
)

# What a person says around a part of their life without naming it, for finding those turns (never for reading a
# fact): a question about a partner is answered by "a first date with X", where they live by "we signed a lease".
# Each entry: the words of a question that call it, and the words its turns use. General knowledge only.
LIFE_CONTEXT: tuple[tuple[frozenset[str], frozenset[str]], ...] = (
    (
        words("wife husband partner spouse girlfriend boyfriend gf bf fiance fiancee fiancé fiancée dating seeing"),
        words("date dating dated anniversary valentine valentines wedding engaged proposed honeymoon"),
    ),
    (
        words("live lives living neighbourhood neighborhood house flat apartment home"),
        words(
            "moved moving move shifted lease rent landlord apartment apt flat house movers boxes neighbourhood "
            "unpacking internet wifi broadband "
            # moving house in other languages (German, Spanish, Portuguese, French, Italian, Polish, Dutch,
            # Scandinavian, Finnish, Turkish, Tagalog)
            "umzug umgezogen mudanza mudamos mudança déménagement déménagé déménager trasloco przeprowadzka "
            "przeprowadziliśmy verhuizing verhuisd flytting flyttet flyttade muutto muutettiin taşındık taşınma "
            "lipat"
        ),
    ),
    (
        words("work works job employer company office hospital shift role title position promoted promotion"),
        words("job shift shifts nights offer hired interview started office promo promoted promotion title"),
    ),
    (
        words("pet pets dog cat puppy kitten"),
        words("vet walk walks fed litter kibble adopted rescue"),
    ),
    (
        words("birthday bday"),
        words("turned turning cake candles celebrating birthday bday"),
    ),
    (
        words("car drive drives driving vehicle truck suv minivan motorbike motorcycle"),
        words("drove drive driving dealership lease mileage charger charging garage picked traded"),
    ),
    (
        words("son daughter kid kids child children baby"),
        words("school daycare nursery teacher born weeks nap naps"),
    ),
)


# Relatives whose other words (another language's, a pet name) a question about one of them also searches.
_FAMILY = words(
    "wife husband partner fiance son daughter child mother father sister brother nephew niece aunt uncle "
    "grandmother grandfather"
)


# Words for a relative that are as often something else ("git stash pop", "a child process", a name).
_NOT_ONLY_KIN = words("pop mann mari child kid kiddo baby")


def _asked(question: str) -> set[str]:
    """A question's words, lowercase, a possessive "'s" cut."""
    return {re.sub(r"['’]s$", "", w) for w in re.findall(r"[\w'’]+", question.lower())}


def kin_words(question: str) -> list[str]:
    """The other words for each relative a question names ("my mum": mother, mom, maman, mère, ...), in the
    table's order; none for a question that names no relative."""
    asked = _asked(question)
    wanted = {KIN[w] for w in asked - _NOT_ONLY_KIN if KIN.get(w) in _FAMILY}
    return [
        w
        for w, rel in KIN.items()
        if rel in wanted and w not in asked and w not in _NOT_ONLY_KIN and len(w) > 2 and " " not in w
    ]


def life_context(question: str) -> list[str]:
    """The words turns about the parts of a life a question names use (LIFE_CONTEXT), in its order."""
    asked = _asked(question)
    out: dict[str, None] = {}
    for calls, used in LIFE_CONTEXT:
        if calls & asked:
            out.update(dict.fromkeys(sorted(used)))
    return list(out)


# Tool categories for "which X do i prefer": general knowledge, broad on purpose.
TOOL_CATEGORIES: dict[str, frozenset[str]] = {
    "python package manager": words("uv pip poetry pipenv pdm conda mamba hatch rye pip-tools"),
    "package manager": words("uv pip poetry pipenv pdm conda mamba npm yarn pnpm bun cargo brew homebrew apt"),
    "dataframe library": words("pandas polars dask pyspark spark vaex modin duckdb ibis"),
    "editor": words("vim neovim nvim emacs vscode code helix zed sublime intellij pycharm nano"),
    "shell": words("bash zsh fish nushell powershell"),
    "terminal": words("iterm iterm2 alacritty kitty wezterm ghostty tmux"),
    "test framework": words("pytest unittest jest vitest mocha rspec"),
    "language": words("python go rust java kotlin typescript javascript ruby elixir scala swift c++ haskell"),
    "browser": words("firefox chrome chromium safari brave edge arc"),
    "keyboard layout": words("qwerty qwertz azerty dvorak colemak colemak-dh workman"),
    "drink": words("coffee tea matcha espresso latte cappuccino chai kombucha"),
}
CATEGORY_ALIASES = {
    "python package manager": "python package manager",
    "package manager": "package manager",
    "dependency manager": "package manager",
    "dataframe library": "dataframe library",
    "dataframe lib": "dataframe library",
    "data frame library": "dataframe library",
    "editor": "editor",
    "text editor": "editor",
    "shell": "shell",
    "terminal": "terminal",
    "test framework": "test framework",
    "testing framework": "test framework",
    "language": "language",
    "programming language": "language",
    "browser": "browser",
    "keyboard layout": "keyboard layout",
}

_ASKED_CATEGORY = re.compile(
    r"\b(?:what|which)\s+(?:[\w'’-]+\s+){0,2}?("
    + "|".join(sorted((re.escape(a) for a in CATEGORY_ALIASES), key=len, reverse=True))
    + r")s?\b"
)


# Kinds of tool the work uses, for "what do we load test with", "which sms provider do we use", "what does the
# service log with": the kind's well-known members, searched beside the question's words. General knowledge of
# the trade, broad on purpose; a member that is mostly an everyday word ("hey", "linear", "black", "tempo") is left
# out, and so is a way of asking that a question says of many things ("deploy", "payment", "environments",
# "broker", "proxy"). Each kind: its members, then how a question asks for it (`_ASKED_WORK_TOOL`).
WORK_TOOL_KINDS: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = tuple(
    (words(members), tuple(asked.split("|")))
    for members, asked in (
        (
            "k6 locust jmeter gatling vegeta artillery wrk",
            "load test|load tests|load tested|load testing|load-test|stress test|stress tested",
        ),
        (
            "slog zerolog logrus structlog loguru winston pino bunyan log4j log4j2 logback serilog nlog",
            "log with|logs with|logging library|logger",
        ),
        (
            "pagerduty opsgenie victorops squadcast",
            "page through|pages through|paged through|pages me|on-call tool|oncall tool|alerting tool",
        ),
        (
            "twilio vonage nexmo messagebird plivo sinch",
            "sms provider|sms gateway|sms service|sms api|send sms with|sends our sms",
        ),
        (
            "ses sendgrid mailgun postmark mandrill sparkpost brevo mailjet",
            "email provider|email service|"
            "mail provider|mail service|transactional email|sends our email|sends our emails|sends the emails",
        ),
        ("fcm apns onesignal pusher airship", "push notifications|push notification|push provider|push service"),
        (
            "mapbox maplibre maptiler leaflet openlayers cesium",
            "map library|maps library|map sdk|maps sdk|map provider|maps provider|map tiles|tile provider|basemap|map",
        ),
        (
            "sentry rollbar bugsnag honeybadger raygun airbrake",
            "error tracking|error tracker|crash reporting|error monitoring|error reporting",
        ),
        ("jenkins circleci buildkite travis teamcity woodpecker", "ci|ci system|ci provider|ci server|build server"),
        (
            "kafka rabbitmq nats redpanda pulsar sqs pubsub activemq zeromq mqtt emqx mosquitto",
            "message broker|message queue|message bus|event bus|streaming platform",
        ),
        ("vault sops doppler infisical 1password bitwarden", "secrets|secrets manager|secret store|secret manager"),
        (
            "conda mamba micromamba pixi venv virtualenv poetry pyenv nix direnv",
            "environment manager|env manager|manages the environment|manages environments|python environment",
        ),
        (
            "airflow prefect luigi snakemake nextflow argo",
            "orchestrator|workflow manager|workflow engine|pipeline tool|dag tool|orchestration",
        ),
        ("jaeger zipkin honeycomb opentelemetry otel lightstep", "tracing|distributed tracing|traces"),
        (
            "prometheus grafana datadog newrelic victoriametrics thanos mimir influxdb zabbix nagios",
            "monitoring|metrics stack|observability",
        ),
        (
            "sqlalchemy prisma typeorm sequelize gorm sqlc diesel ecto knex kysely peewee sqlx psycopg asyncpg pgx",
            "orm|db library|database library|query builder|db driver|database driver",
        ),
        ("launchdarkly unleash flagsmith growthbook configcat", "feature flags|feature flag|feature-flag"),
        ("restic borg borgbackup pgbackrest barman velero wal-g rclone duplicity kopia", "backup tool|backups|backup"),
        ("cloudflare fastly akamai cloudfront bunnycdn", "cdn"),
        ("elasticsearch opensearch meilisearch typesense algolia solr", "search engine|search backend|search index"),
        ("wireguard tailscale openvpn zerotier headscale", "vpn"),
        ("ruff flake8 pylint eslint golangci-lint clippy rubocop", "linter|lint with|linting"),
        ("prettier gofmt rustfmt ruff yapf autopep8", "formatter|format with|formatting"),
        ("webpack vite esbuild turbopack", "bundler|bundle with"),
        ("jira youtrack asana trello", "issue tracker|ticket system|ticketing|project tracker"),
        (
            "stripe adyen paypal braintree mollie",
            "payment provider|payments provider|payment processor|payment gateway",
        ),
        ("auth0 okta keycloak cognito authentik", "auth provider|identity provider|idp|sso provider|login provider"),
        ("celery rq sidekiq bullmq dramatiq huey", "task queue|job queue|background jobs|background job|worker queue"),
        ("nginx traefik envoy haproxy caddy", "reverse proxy|ingress controller"),
        ("redis memcached varnish", "cache|caching"),
        ("mlflow wandb neptune", "experiment tracking|experiment tracker|track experiments"),
    )
)
_WORK_TOOL_ASKS = sorted({a for _, asked in WORK_TOOL_KINDS for a in asked}, key=len, reverse=True)
_PHRASE = re.compile(r"[\s-]")
# a kind said in one word ("what map", "which cache") right after "what" or "which", or after "use for"; in a phrase
# ("load test", "load-test", "log with") after at most four words ("what did i use to load test the api")
_ASKED_WORK_TOOL = re.compile(
    r"\b(?:(?:what|which)\s+(?:[\w'’-]+\s+){0,4}?("
    + "|".join(re.escape(a) for a in _WORK_TOOL_ASKS if _PHRASE.search(a))
    + r")|(?:what|which)\s+("
    + "|".join(re.escape(a) for a in _WORK_TOOL_ASKS if not _PHRASE.search(a))
    + r")|(?:use|uses|using|used)\s+for\s+(?:the\s+|our\s+)?("
    + "|".join(re.escape(a) for a in _WORK_TOOL_ASKS)
    + r"))s?\b"
)
_WORK_TOOL_OF = {a: members for members, asked in WORK_TOOL_KINDS for a in asked}


def category_members(question: str) -> list[str]:
    """The known members of the kind of tool a question asks for ("which editor do i use": vim, helix, ...; "what
    do we load test with": k6, locust, ...), so a search finds the turn that names one in passing; none when it
    asks for no such kind."""
    low = question.lower()
    m = _ASKED_CATEGORY.search(low)
    if m:
        return sorted(TOOL_CATEGORIES[CATEGORY_ALIASES[m.group(1)]])
    w = _ASKED_WORK_TOOL.search(low)
    return sorted(_WORK_TOOL_OF[next(g for g in w.groups() if g)]) if w else []


HOLIDAYS: dict[str, str] = {
    "christmas": "christmas",
    "xmas": "christmas",
    "christmas eve": "christmas",
    "weihnachten": "christmas",
    "noël": "christmas",
    "navidad": "christmas",
    "thanksgiving": "thanksgiving",
    "easter": "easter",
    "ostern": "easter",
    "new year": "new year",
    "new year's": "new year",
    "new years": "new year",
    "new year's eve": "new year",
    "hanukkah": "hanukkah",
    "passover": "passover",
    "diwali": "diwali",
    "eid": "eid",
}

DAYS = words(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays "
    "saturdays sundays mon tue tues wed thu thur thurs fri sat sun weekends weekdays"
)

ROLE_HEADS = words(
    "engineer developer dev programmer manager lead head director designer pm po cto ceo cfo coo vp founder "
    "cofounder co-founder owner analyst scientist architect sre devops mlops intern consultant bookkeeper "
    "accountant realtor agent nurse doctor physio physiotherapist therapist dentist vet teacher professor "
    "lawyer attorney chef baker cook student researcher administrator admin recruiter guy girl person officer "
    "specialist coordinator editor writer journalist pharmacist surgeon paramedic firefighter pilot driver "
    "electrician plumber mechanic carpenter librarian tester qa cashier clerk secretary assistant"
)

# Common words that are never a name when they follow a cue word in lowercase text.
_STOP_TEXT = """
a an the and or but nor so yet for of to in on at by with from into onto over under about above below after
before since until till up down out off away back again still just only also too very really quite pretty
rather even ever never always often usually sometimes already soon now then today tonight tomorrow yesterday
morning evening night afternoon week weekend month year day days time times last next this that these those
here there where when why how what who whom whose which whatever i me my mine myself you your yours we us our
ours he him his she her hers it its they them their theirs one ones someone somebody anyone anybody everyone
nobody nothing something anything everything all any some each every both either neither few many much more
most less least lot lots bit little big small new old good bad great best better worse worst nice fine ok okay
yes no not dont don't doesnt doesn't didnt didn't isnt isn't wasnt wasn't cant can't wont won't im i'm ive
i've id i'd ill i'll youre you're hes he's shes she's were we're theyre they're thats that's theres there's
is am are was were be been being have has had having do does did doing done can could will would shall should
may might must need needs ought get got gets getting go goes going gone went come comes came coming make made
take took taken give gave say said tell told ask asked know knew think thought want wanted like liked love
loved hate hated see saw seen look looked feel felt try tried use used work worked call called name named
start started starts end ended finish finished keep kept let put set run ran pick picked bring brought buy
bought pay paid leave left live lived move moved stay stayed meet met help helped turn turned play played watch
watched wait waited talk talked sent send write wrote read sit sat stand stood walk walked drive drove ride
eat ate drink drank sleep slept wake woke cook cooked clean cleaned fix fixed open opened close closed
pretend pretends wish hope hoped guess guessed mean meant seem seemed happen happened become became
lose lost win won fly flew sign signed join joined tear tore chase chased
arrive fall fell fallen break broke broken land return visit travel phone text drop hurt cut hit catch caught
teach taught spend spent build built sell sold hold held hear heard find found forget forgot grow grew throw threw
speak spoke choose chose begin began swim swam ring rang shoot shot hide hid feed fed lend lent die died pass
retire graduate recover struggle suffer complain insist refuse agree decide plan prefer remember notice learn
study book cancel bake paint plant pack unpack rent own borrow share show showed shown laugh cry cried yell shout
smile sing sang dance hike cycle jog ski slip slipped collapse crash
app apps api web site server client repo cloud data code test build
home house flat place apartment room kitchen office school work job car dog cat kid kids baby family
wife husband partner son daughter mom mum dad mother father sister brother friend boss manager team
birthday party dinner lunch breakfast coffee tea
thing things stuff way ways lol haha ugh hmm oh ah wow yeah yep yup nope thanks thx ty pls please sorry
btw fyi tbh imo idk omg anyway though although because cause cuz since while whilst if unless whether
unrelated related relatedly separately sidenote meanwhile incidentally anyhow random funny weirdly oddly
honestly seriously basically literally apparently personally totally luckily unfortunately fortunately sadly
thankfully hopefully
as than like such same other another own again else instead
first second third fourth fifth once twice
mr ms mrs miss dr
"""
# Nouns of the work, never verbs: no one's name ("our client timeout"), nor is a pet's name the word before one
# ("our rabbit ocr setup").
TECH_NOUNS = words(
    "timeout timeouts setup config cache queue queues pipeline endpoint endpoints cluster schema database db "
    "migration server repo api"
)
STOP = words(_STOP_TEXT)
TITLES = words("mr ms mrs miss mx dr prof herr frau")


_CONTRACTED = frozenset({"re", "ve", "ll"})  # the tail of "they're", "we've", "she'll", read as a word after the mark


def is_stop(token: str) -> bool:
    """A common word (or a simple inflection of one): never taken as a name from lowercase text."""
    t = token.lower().strip("'’")
    if t in STOP or t in KIN or t in PETS or t in DAYS or t in _CONTRACTED:
        return True
    for suffix, repl in (("s", ""), ("es", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"), ("'s", "")):
        if t.endswith(suffix) and len(t) - len(suffix) >= 3 and (t[: -len(suffix)] + repl) in STOP:
            return True
    return False


_TOKEN = re.compile(r"^[^\W\d_][^\W\d_'’-]*(?:[-'’][^\W\d_]+)*$")


def is_name_token(token: str) -> bool:
    """Could this token be (part of) a person's, pet's or place's name?"""
    if not _TOKEN.match(token) or len(token) < 2:
        return False
    return not is_stop(token)


def display(value: str) -> str:
    """Proper-case a value written in lowercase ("marisel" -> "Marisel", "gt-7" -> "GT-7"); keep mixed case."""
    out: list[str] = []
    for tok in value.split():
        if tok != tok.lower():
            out.append(tok)
        elif any(c.isdigit() for c in tok) and any(c.isalpha() for c in tok) and len(tok) <= 6:
            out.append(tok.upper())
        elif tok in {"and", "of", "the", "for", "de", "van", "von", "der", "da", "di", "la", "le", "+"}:
            out.append(tok)
        else:
            out.append("-".join(p[:1].upper() + p[1:] for p in tok.split("-")))
    return " ".join(out)
