"""The person's life, said in passing inside work sessions, and what an agent may see of it.

People type asides into work sessions ("have to leave at 4 to walk the dog", "we finally moved house"). An
agent granted a project reads that project's sessions, but never the person's life (DESIGN "Scopes"). This
module decides, sentence by sentence (and clause by clause inside a sentence joined by "so", "because", ";"),
what an agent may see:

- the person's own words (typed or pasted): a clause is kept only when it carries something of the work (a
  technical word, a file, a path, an identifier, a version) and nothing of the person's life (family, pets,
  health, home and address, plans and feelings); a short neutral reply ("ok, go ahead") is kept too. Anything
  else is withheld: privacy first, so an unclear clause is cut;
- the assistant's text and other prose (summaries, a program's brief): a clause is withheld when it speaks of
  someone's family, pets, health, home or plans;
- tool calls and tool output are kept as they are (code, logs, files of the project).

`withhold_personal` cuts what is withheld out of the text (it is not merely ranked lower), keeping the rest
in order. `personal_question` tells a question about the person's own life, which an agent never gets answered.
All functions are pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..contract import AGENT_PROMPT, ASSISTANT, COMPACT_SUMMARY, META, PASTED, THINKING, TYPED
from .trust import sentences

__all__ = [
    "WITHHELD",
    "personal_clause",
    "personal_question",
    "speaks_of_life",
    "withheld_spans",
    "withhold_personal",
]

WITHHELD = "[…]"  # where an aside was cut out

_OWN_KINDS = frozenset({TYPED, PASTED})
_PROSE_KINDS = frozenset({ASSISTANT, THINKING, COMPACT_SUMMARY, AGENT_PROMPT, META})


def _words(text: str) -> str:
    return "|".join(sorted({w.replace(" ", r"\s+") for w in text.split(",") if w.strip()} - {""}, key=len))


# Words of a person's life that mean the same in any sentence (no work sense worth keeping them for).
_LIFE = re.compile(
    r"\b(?:"
    + _words(
        "wife,wives,husband,husbands,spouse,fiance,fiancee,fiancé,fiancée,girlfriend,boyfriend,son,sons,daughter,"
        "daughters,stepson,stepdaughter,mom,moms,mum,mums,mommy,mummy,mother,mothers,dad,dads,daddy,father,fathers,"
        "stepmom,stepdad,sister,sisters,brother,brothers,nephew,nephews,niece,nieces,aunt,aunts,uncle,uncles,"
        "cousin,cousins,grandma,grandpa,grandmother,grandfather,granny,grandparents,grandson,granddaughter,"
        "grandkids,grandchildren,in-law,in-laws,toddler,newborn,nanny,babysitter,daycare,nursery,kindergarten,"
        "preschool,wedding,honeymoon,married,marry,divorce,divorced,pregnant,pregnancy,funeral,passed away,"
        "dog,dogs,puppy,puppies,kitten,kittens,whippet,terrier,labrador,retriever,poodle,spaniel,beagle,"
        "collie,corgi,dachshund,greyhound,bulldog,hamster,parrot,tortoise,goldfish,"
        "dentist,hospital,surgery,sick,illness,flu,fever,covid,migraine,therapist,therapy,medication,meds,"
        "prescription,allergic,allergy,allergies,injury,injured,physio,checkup,"
        "exhausted,stressed,anxious,anxiety,depressed,depression,burned out,burnt out,burnout,lonely,sad,upset,"
        "grieving,overwhelmed,heartbroken,miserable,scared,"
        "mortgage,landlord,neighbour,neighbours,neighbor,neighbors,vacation,holiday,holidays,birthday,"
        "anniversary,lunch,dinner,breakfast,gym,yoga,church,date night,school run,moved house,moving house,"
        "new house,new flat,new apartment,my place"
    )
    + r")\b",
    re.I,
)
# Words with a work sense too ("child process", "flutter doctor"): personal when someone's ("my kids").
_OWNED = re.compile(
    r"\b(?:my|our|your|his|her|their|the\s+user'?s|the\s+person'?s|[a-z]+'s)\s+(?:\w+\s+)?(?:"
    + _words(
        "kid,kids,child,children,baby,babies,parent,parents,family,partner,doctor,home,house,flat,apartment,"
        "place,car,pet,pets,cat,cats,birthday,school,teacher,friend,friends,boss,health,life,weekend,trip,flight,"
        "address,street,city,town,hometown,neighbourhood,neighborhood,age,name,better half,other half"
    )
    + r")\b",
    re.I,
)
# A street address: a house number, a name, a street word ("14 elm row", "221b baker street").
_ADDRESS = re.compile(
    r"\b\d{1,5}[a-z]?\s+(?:[a-z][\w'-]*\s+){1,3}(?:street|st|road|rd|row|lane|ln|avenue|ave|drive|dr|court|ct|"
    r"close|way|place|pl|crescent|terrace|boulevard|blvd|square|sq|gardens|grove|hill|mews|park|walk)\b",
    re.I,
)
# Something of the work: a technical word, or a token only code has (a path, a file, an identifier, a version).
_WORK_WORD = re.compile(
    r"\b(?:"
    + _words(
        "bug,bugs,fix,fixes,fixed,fixing,test,tests,tested,testing,flaky,deploy,deploys,deployed,deploying,"
        "deployment,release,releases,released,build,builds,error,errors,exception,exceptions,stack trace,traceback,"
        "function,functions,method,methods,class,classes,module,modules,file,files,folder,directory,endpoint,"
        "endpoints,api,apis,route,routes,handler,handlers,query,queries,database,db,table,tables,column,columns,"
        "migration,migrations,schema,index,indexes,cache,caching,config,configuration,server,servers,client,clients,"
        "request,requests,response,responses,webhook,webhooks,token,tokens,auth,login,logout,signup,sso,oauth,"
        "password,commit,commits,branch,branches,merge,merged,pr,prs,pull request,code review,refactor,rename,"
        "renamed,lint,linter,typecheck,compile,compiler,ci,pipeline,queue,queues,worker,workers,retry,retries,"
        "timeout,timeouts,log,logs,logging,crash,crashes,crashed,regression,feature,features,issue,issues,ticket,"
        "tickets,code,repo,repos,repository,script,scripts,service,services,prod,production,staging,rollback,"
        "roll back,rolled back,ship,shipped,shipping,invoice,invoices,customer,customers,users,dashboard,page,pages,"
        "button,component,"
        "components,css,html,json,yaml,sql,docker,container,containers,cluster,library,package,packages,"
        "dependency,dependencies,version,versions,upgrade,patch,hotfix,benchmark,latency,cpu,export,exports,"
        "jobs,cron,backup,flag,flags,env,variable,variables,parameter,parameters,argument,arguments,field,fields,"
        "payload,header,headers,cookie,cookies,spec,specs,docs,readme,changelog,sprint,standup,deadline,demo,"
        "refund,refunds,billing,payment,payments,checkout,cart,orders,report,reports,email template,"
        "integration,sdk,cli,ui,ux,frontend,backend,mobile app,app,apps,feature flag,metrics,alert,alerts,"
        "incident,outage,on-call,oncall,review,reviews,diff,rust,python,typescript,javascript,"
        "nodejs,react,django,rails,postgres,postgresql,mysql,sqlite,redis,kafka,s3,aws,gcp,azure,kubernetes,k8s,"
        "terraform,nginx,webpack,vite,npm,pip,git,github,gitlab,jira,slack bot,stripe,graphql,grpc,http,https,"
        "url,urls,uri,regex,unicode,utf-8,encoding,decimal,rounding,timezone,cron job,session,sessions,"
        "decided,decision,decisions,approach,instead,architecture,design doc,adr,rfc"
    )
    + r")\b",
    re.I,
)
_CODE_TOKEN = re.compile(
    r"`[^`]+`|\b[a-z_][\w.-]*/[\w.-]+[\w./-]*|\b\w+\.(?:py|ts|tsx|js|jsx|go|rs|rb|java|kt|sql|sh|md|json|ya?ml|toml|css|html|lock|"
    r"txt|csv|ini|cfg)\b|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\bv?\d+\.\d+(?:\.\d+)+\b|\w+\(\)|::|=>|->"
)
_NEUTRAL = frozenset(
    "yes yep yeah yup no nope ok okay k sure go ahead do it that this looks good great thanks thank you thx ty "
    "please continue nice perfect done lgtm agreed agree right correct fine cool right awesome excellent "
    "sounds works ship merge".split()
)
_CLAUSE = re.compile(r",?\s+(?:so|because|cause|since|but)\s+|\s*;\s*|\s+[—–-]\s+|,\s+(?:and|then)\s+", re.I)
_PERSON_REF = re.compile(
    r"\b(?:i|me|my|mine|myself|i'm|i've|i'll|i'd|user|user's|person|person's|owner|developer|"
    r"they|them|their|he|him|his|she|her)\b",
    re.I,
)
_LIFE_ASKED = re.compile(
    r"\b(?:live|lives|living|home|house|address|moved|move|born|birthday|age|old|married|visiting|visit|"
    r"vacation|holiday|weekend|school|pet|car|drive|drives|family|kids?|children|partner|name|called|hobby|"
    r"hobbies|health|sick|feel|feeling|allergic|pick(?:s|ing)? up|drop(?:s|ping)? off|babysit\w*|dinner|lunch|"
    r"weekend|birthday|anniversary|vacation|trip|dating|who am i seeing|seeing (?:someone|anyone)|going out with|"
    r"(?:my|our|new|old) (?:truck|suv|minivan|motorbike|motorcycle)|(?:truck|suv|minivan|motorbike|motorcycle) "
    r"(?:did|do) (?:i|we)|(?:am|was|were) (?:i|we) driving(?! the)|"
    r"(?:city|town|hometown) (?:am|are|do|did|was|were) (?:i|we)|(?:am|are|was|were) (?:i|we) based|job title|"
    r"my (?:job )?title|(?:was|were|got|get) (?:i|we) promoted|my promotion|"
    r"sports? (?:do|did|does) (?:i|we|he|she|they) (?:play|do)|"
    r"(?:football|soccer|hockey|basketball|baseball|rugby|cricket) (?:team|club)|"
    r"club (?:do|did) (?:i|we) (?:support|follow)|(?:my|our) vehicle|vehicle (?:do|did|am|was) (?:i|we)|"
    r"(?:i|we) commute|get to (?:the office|work)(?: these days| now| nowadays| every day)?\s*\??$|role at work|"
    r"(?:my|our) (?:current |new )role(?: now| these days)?\s*\??$|(?:is|are) (?:my|our) office(?: in| at)?\s*\??$|"
    r"marrying)\b",
    re.I,
)

# "we" of a household, not a team: where we live, when we moved (not "moved the cron job"), our house, car or holiday
_WE_LIVE = re.compile(
    r"\bwe(?:'re| are| were)?\s+(?:\w+ly\s+)?(?:live|lived|living|(?:move|moved|moving)"
    r"(?!\s+(?:the|a|an|it|them|this|that|these|those|our|its|from|to|off|over|onto|away|back)\b))\b",
    re.I,
)
_WE = re.compile(r"\b(?:we|us)\b", re.I)
# "who lives with us now", "what do we use for backup power at home": a household, by whom it lives with or its home,
# though a word of the work ("backup") is in the question
_HOUSEHOLD_OF = re.compile(
    r"\b(?:who|whom|anyone|anybody|someone|somebody)\b.*\b(?:lives?|living|stays?|staying|moved\s+in)\s+with\s+"
    r"(?:us|me)\b|\b(?:we|i|us|our|my)\b.*\b(?:at|around)\s+home\b(?!\s+(?:page|screen|dir|directory|delivery|feature"
    r"|button|route|view|tab|folder|path|network)s?\b)",
    re.I,
)
# "which part of town is home now"
_HOME_NOW = re.compile(r"\b(?:is|feels like) home(?: now| these days)?\s*\??$", re.I)
_HOUSEHOLD = re.compile(
    r"(?<![\w-])(?:house|flat|flats|apartment|car|holiday|vacation|anniversary|wedding|"
    r"(?:summer|winter|spring|easter|christmas) break)(?![\w-])",
    re.I,
)


def _work(text: str) -> bool:
    return bool(_WORK_WORD.search(text) or _CODE_TOKEN.search(text))


def speaks_of_life(text: str) -> bool:
    """Does the text speak of someone's family, pets, health, home or plans (a life word, something of
    someone's, a street address)?"""
    return bool(_LIFE.search(text) or _OWNED.search(text) or _ADDRESS.search(text))


def _neutral(text: str) -> bool:
    words = re.findall(r"[\w']+", text.lower())
    return len(words) <= 5 and all(w in _NEUTRAL for w in words)


def personal_clause(text: str, kind: str) -> bool:
    """Is this clause withheld from an agent? The person's own words unless plainly work; prose that speaks of
    someone's life; never a tool's text."""
    if kind in _OWN_KINDS:
        if speaks_of_life(text):
            return True
        return not _neutral(text) and not _work(text)
    if kind in _PROSE_KINDS:
        return speaks_of_life(text)
    return False


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans, at = [], start
    for m in _CLAUSE.finditer(text, start, end):
        spans.append((at, m.start()))
        at = m.start()  # the joining word stays with the clause it opens
    spans.append((at, end))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def withheld_spans(text: str, kind: str, also: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """The (start, end) of every clause of `text` withheld from an agent (`personal_clause`, or one of `also`, the
    clauses known to speak of a life), in order."""
    if kind not in _OWN_KINDS and kind not in _PROSE_KINDS:
        return []
    cuts: list[tuple[int, int]] = []
    for s in sentences(text):
        a, b = s.span
        cuts.extend(
            (ca, cb)
            for ca, cb in _clauses(text, a, b)
            if personal_clause(text[ca:cb], kind) or _among(text[ca:cb], also)
        )
    return cuts


_PIECE = 8  # characters: a shorter piece of a known clause is not taken for it


def _among(clause: str, known: frozenset[str]) -> bool:
    """Whether `clause` is one of `known`, or a piece of one (a passage cut mid-clause), or holds one."""
    c = clause.strip()
    if not c or not known:
        return False
    return c in known or any(k in c or (len(c) >= _PIECE and c in k) for k in known)


@lru_cache(maxsize=4096)
def withhold_personal(text: str, kind: str, also: frozenset[str] = frozenset()) -> str:
    """`text` with every withheld clause cut out (each cut marked once by `WITHHELD`), `also` those clauses;
    '' when nothing is left but cuts. Text an agent may see whole comes back unchanged."""
    cuts = withheld_spans(text, kind, also)
    if not cuts:
        return text
    out, at = [], 0
    for a, b in cuts:
        out.append(text[at:a])
        if not "".join(out).rstrip().endswith(WITHHELD):
            out.append(WITHHELD)
        at = b
    out.append(text[at:])
    kept = re.sub(r"[ \t]+", " ", "".join(out)).strip()
    return "" if not kept.replace(WITHHELD, "").strip(" .,;:!?-—–\n") else kept


def personal_question(question: str) -> bool:
    """Does the question ask about a person's own life (family, pets, home, health, plans), not the work?"""
    q = question.strip()
    if _OWNED.search(q) and not re.search(r"\b(?:field|column|table|endpoint|api|file|function|model)\b", q, re.I):
        return True
    if _HOUSEHOLD_OF.search(q) and not _CODE_TOKEN.search(q):
        return True
    if _work(q):
        return False
    return bool(
        _LIFE.search(q)
        or _ADDRESS.search(q)
        or _WE_LIVE.search(q)
        or _HOME_NOW.search(q)
        or (_WE.search(q) and _HOUSEHOLD.search(q))
        or (_PERSON_REF.search(q) and _LIFE_ASKED.search(q))
    )
