from .audit import AuditEvent
from .claims import Atom, AtomContext
from .corpus import Answer, Assignment, KnowledgeSource, Membership, Passage, Project, Question
from .runs import LLMCall, LLMEndpoint, Run
from .spans import ErrorSpan, Preference
from .verdicts import Verdict

__all__ = [
    "Answer",
    "Assignment",
    "Atom",
    "AtomContext",
    "AuditEvent",
    "ErrorSpan",
    "KnowledgeSource",
    "LLMCall",
    "LLMEndpoint",
    "Membership",
    "Passage",
    "Preference",
    "Project",
    "Question",
    "Run",
    "Verdict",
]
