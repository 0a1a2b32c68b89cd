"""How fluently a summary reads, in [0, 1]: an embedded heuristic, or a language model's SLOR.

The flow's `fluency` key chooses: `embedded` needs nothing and depends on identifiers only
through equality (an alpha-renamed module scores the same); `lm` asks the hf policy's own
model, which reads the identifiers' spelling too. torch is imported only by the LM scorer,
so the embedded path runs without it.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from hdlrl.summarize.claims import sentences

RUN_ON_WORDS = 30  # words a sentence may have before the run-on penalty starts
MAX_TOKENS = 1024  # tokens of a text the LM reads: a long document's fluency is its opening's, at a bounded cost
_WORD = re.compile(r"`[^`]*`|\w+|[^\w\s`]")
_CODE_TOKENS = re.compile(r"<=|==|!=|&&|\|\||;|\{|\}|\b(?:begin|end|endmodule|always|assign|posedge|negedge)\b|\d+'[bhdo]",
                          re.IGNORECASE)


def embedded_fluency(text: str) -> float:
    """1 - 0.5 run-on - repetition - 0.5 code, in [0, 1].

    run-on: per sentence, the words past RUN_ON_WORDS over RUN_ON_WORDS (at most 1), averaged;
    repetition: the fraction of word trigrams of the whole text that repeat an earlier one;
    code: per sentence, 0.5 per code token outside backticks (at most 1), averaged.
    A backticked identifier is one word, whatever its length.
    """
    parts = sentences(text)
    if not parts:
        return 0.0
    measured = [_sentence_measures(sentence) for sentence in parts]
    run_on = sum(sentence_run_on for _, sentence_run_on, _ in measured) / len(parts)
    all_words = [word for words, _, _ in measured for word in words]
    trigrams = list(zip(all_words, all_words[1:], all_words[2:]))
    repetition = 1 - len(set(trigrams)) / len(trigrams) if trigrams else 0.0
    code = sum(sentence_code for _, _, sentence_code in measured) / len(parts)
    return max(0.0, 1.0 - 0.5 * run_on - repetition - 0.5 * code)


@lru_cache(maxsize=65536)
def _sentence_measures(sentence: str) -> tuple[tuple[str, ...], float, float]:
    """(its words, its run-on, its code) for `embedded_fluency`: a search scores thousands of
    documents that share most of their sentences. Prose words are compared case-blind,
    identifiers exactly (`REMAINER` and `remainer` are two signals)."""
    words = _WORD.findall(sentence)
    run_on = min(1.0, max(0, len(words) - RUN_ON_WORDS) / RUN_ON_WORDS)
    code = min(1.0, 0.5 * len(_CODE_TOKENS.findall(re.sub(r"`[^`]*`", " ", sentence))))
    return tuple(word if word.startswith("`") else word.lower() for word in words), run_on, code


def slor(lm_logprob: float, unigram_logprob: float, tokens: int) -> float:
    """SLOR (Pauls and Klein 2012; Kann et al. 2018) = (ln p_LM(S) - ln p_unigram(S)) / |S|.

    Subtracting the unigram log-probability takes out how rare the words are, and dividing by
    the length takes out how long the text is: what is left is how well the words fit together.
    """
    return (lm_logprob - unigram_logprob) / tokens


class LanguageModelFluency:
    """fluency(S) = 1 / (1 + exp(-SLOR(S))) under a transformers causal LM (the hf policy's model, adapter as it is).

    SLOR wants a unigram model of the corpus, and there is no corpus here: the stand-in is the
    LM's own distribution of the first token after the beginning of a text (BOS, or the
    end-of-sequence token when the tokenizer has none), p_unigram(t) = p_LM(t | BOS), one
    forward pass computed once. It is data-free, and ranks tokens by how likely they are to
    open a text rather than by corpus frequency. The first MAX_TOKENS tokens are read; an empty
    text has fluency 0, as with the embedded heuristic.
    """

    def __init__(self, model: Any, tokenizer: Any, cache_size: int = 4096):
        self.model = model
        self.tokenizer = tokenizer
        self.start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
        if self.start is None:
            raise ValueError("the tokenizer names neither a beginning- nor an end-of-sequence token")
        self.device = next(model.parameters()).device
        self.unigram_logprobs = self._next_token_logprobs([])[0]
        self._fluency = lru_cache(maxsize=cache_size)(self._uncached_fluency)

    def __call__(self, text: str) -> float:
        return self._fluency(text)

    def _next_token_logprobs(self, ids: list[int]) -> Any:
        """Row i: log p_LM(next token | BOS, ids[:i]) over the vocabulary, for i = 0 .. len(ids)."""
        import torch

        with torch.no_grad():
            logits = self.model(input_ids=torch.tensor([[self.start, *ids]], device=self.device)).logits[0]
        return torch.log_softmax(logits.float(), dim=-1)

    def _uncached_fluency(self, text: str) -> float:
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"][:MAX_TOKENS]
        if not ids:
            return 0.0
        tokens = self.unigram_logprobs.new_tensor(ids, dtype=int)
        lm = self._next_token_logprobs(ids)[:-1].gather(-1, tokens[:, None]).sum().item()
        unigram = self.unigram_logprobs[tokens].sum().item()
        return 1 / (1 + math.exp(-slor(lm, unigram, len(ids))))
