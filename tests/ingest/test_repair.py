"""Mojibake repair: seed 004, the damage simulator, and leaving correct text alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.ingest.chinese import context_model, held_out_model
from app.ingest.damage import SAMPLE, damage, score_repair
from app.ingest.repair import repair_mojibake
from tests.conftest import CONTENT, DAMAGED_SEED, require

SEED_004 = DAMAGED_SEED
# A UTF-8 lead byte read as cp125x, followed by a character a continuation byte becomes.
MOJIBAKE = re.compile(
    r"Ã|â€|[åæçèéäïð]"
    r"[\u0080-\u00ff\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u203a\u20ac\u2122]"
)
CJK_OR_ASCII = re.compile(r"^[\x00-\x7f\u3000-\u303f\u3400-\u9fff\uff00-\uffef\U0001f300-\U0001faff]*$")


@pytest.fixture(scope="module")
def repaired_004() -> str:
    result = repair_mojibake(SEED_004.read_text(encoding="utf-8"))
    assert result.code_page == "cp1254"
    return result.text


def test_seed_004_has_no_replacement_characters_or_mojibake_left(repaired_004: str) -> None:
    assert "\ufffd" not in repaired_004
    assert MOJIBAKE.findall(repaired_004) == []


def test_seed_004_headings_read_as_chinese(repaired_004: str) -> None:
    headings = [line for line in repaired_004.split("\n") if line.startswith("#")]
    assert all(CJK_OR_ASCII.match(h) for h in headings), [h for h in headings if not CJK_OR_ASCII.match(h)]
    assert "### GPU显存" in headings
    assert any(h.startswith("#### 训练时的显存占用") for h in headings)
    assert "## Huggingface 🤗 " in headings


def test_seed_004_prose_is_restored(repaired_004: str) -> None:
    assert "需要加载的模型名称或者加载模型的本地路径" in repaired_004


@pytest.mark.parametrize("name", [
    "llama-recipes-faq.zh.md", "llama-recipes-faq.en.md", "deepspeed-chat-faq.zh.md",
    "training-env-troubleshooting.zh.md",
])
def test_repair_changes_nothing_in_clean_seeds(name: str) -> None:
    text = (CONTENT / name).read_text(encoding="utf-8")
    result = repair_mojibake(text)
    assert result.text == text and not result.changed


def test_repair_changes_nothing_in_the_real_corpus(shared: Path) -> None:
    root = require(shared / "corpus" / "real", "the real corpus")
    files = sorted(root.rglob("*.md"))
    assert len(files) >= 12
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert repair_mojibake(text).text == text, path


def test_repair_leaves_western_typography_alone() -> None:
    text = "Café — “quoted” × 3, naïve résumé… it’s 5 µs; 10 °C ±2 § ¶ ½ Ötzi"
    assert repair_mojibake(text).text == text


def test_repair_reverses_lossless_mojibake_exactly() -> None:
    clean = "# 常见问题\n\n显存不足时，请减小批大小。Use `torch.cuda.empty_cache()`.\n"
    damaged = clean.encode("utf-8").decode("latin-1")
    result = repair_mojibake(damaged)
    assert result.text == clean
    assert result.repairs == []


def test_repair_fixes_only_the_damaged_lines_of_a_mixed_text() -> None:
    good = "这一行本来就是正确的中文。"
    clean = "这一行在传输的时候损坏了，需要修复。"
    result = repair_mojibake(f"{good}\n{damage(clean, 'cp1252')}\n{good}")
    lines = result.text.split("\n")
    assert lines[0] == lines[2] == good
    assert len(lines[1]) == len(clean)
    assert sum(a != b for a, b in zip(lines[1], clean, strict=True)) <= 1  # lossy: at most one guess off


def test_repair_uses_replacement_characters_as_known_gaps() -> None:
    clean = "需要加载的模型名称或者本地路径，以及训练时的显存占用"
    damaged = clean.encode("utf-8").decode("cp1252", errors="replace")
    assert "\ufffd" in damaged
    assert repair_mojibake(damaged).text == clean


def test_repairs_record_candidates_and_confidence() -> None:
    result = repair_mojibake(damage("模型名称和参数量都写在配置文件中。", "cp1254"))
    assert result.repairs
    for repair in result.repairs:
        probabilities = [p for _, p in repair.candidates]
        assert repair.chosen == repair.candidates[0][0]
        assert probabilities == sorted(probabilities, reverse=True)
        assert 0 < repair.confidence <= 1


@pytest.mark.parametrize("code_page", ["cp1252", "cp1254"])
def test_damage_simulator_meets_repair_targets(code_page: str) -> None:
    score = score_repair(SAMPLE.read_text(encoding="utf-8"), code_page)
    assert score.characters > 2000 and score.damaged > 200
    assert score.undamaged_changed == 0
    assert score.identical_share >= 0.995, score
    assert score.restored_share >= 0.85, score


def test_repair_reads_the_words_around_an_uncertain_character(repaired_004: str) -> None:
    # ä¸ + a lost byte can be 不, 中 or 与: between two terms, only 与 reads.
    assert "以fp16精度与fp32精度的区别" in repaired_004


def test_seed_004_has_fewer_uncertain_repairs_than_the_context_free_repair() -> None:
    result = repair_mojibake(SEED_004.read_text(encoding="utf-8"))
    assert len(result.uncertain) <= 45  # 77 when each character was judged with 3 neighbours and no bigrams


def test_clean_seeds_damaged_the_cp1254_way_are_restored() -> None:
    names = ["llama-recipes-faq.zh.md", "deepspeed-chat-faq.zh.md", "training-env-troubleshooting.zh.md"]
    scores = [score_repair((CONTENT / name).read_text(encoding="utf-8"), "cp1254") for name in names]
    damaged, restored = sum(s.damaged for s in scores), sum(s.restored for s in scores)
    assert sum(s.undamaged_changed for s in scores) == 0
    assert restored / damaged >= 0.95, (restored, damaged)  # 93.7% without the context model


def test_the_context_model_is_measured_on_text_it_never_saw() -> None:
    sample = SAMPLE.read_text(encoding="utf-8")
    held_out = held_out_model(sample)
    assert held_out is not context_model()
    assert held_out.pairs["显存"] < context_model().pairs["显存"]
    assert held_out_model("没有学过的文本") is context_model()


def test_repair_prefers_typed_characters_to_presentation_forms() -> None:
    # ！ and the emoji selector after ⚠ lose a byte each; Arabic initial forms (ﭼ, ﭸ) fit the
    # same bytes, and the language model knows none of them: only the prior tells them apart.
    text = "⚠️ 注意：显存不足！请减小批大小，然后重新启动训练！模型名称和参数量都写在配置文件里。"
    repaired = repair_mojibake(damage(text, "cp1254")).text
    assert repaired.startswith("⚠️ 注意：显存不足！")
    assert repaired.count("！") == 2
    assert not any(0xFB50 <= ord(char) <= 0xFEFF and char != "\ufe0f" for char in repaired)


def test_a_text_without_code_page_characters_is_not_weighed_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most files hold no character of a code page's upper half: their evidence is nothing, found by one scan
    (weighing each page's invisible bytes against the whole text was 4.6 of 30 s reading 20,000 small files)."""
    from app.ingest import repair

    weighed: list[str] = []
    real = repair._lost_bytes
    monkeypatch.setattr(repair, "_lost_bytes", lambda text, page: weighed.append(page) or real(text, page))
    clean = "## 如何为 peft 设置 key？\n\nSet `key` to 5.\n\n```bash\nexport KEY=5\n```\n"
    assert repair._suspect_pages(clean) == [] and not repair.repair_mojibake(clean).changed
    assert weighed == []
    damaged = "æ˜¾å­˜ä¸è¶³ï¼Œæ€Žä¹ˆåŠžï¼Ÿ"  # 显存不足，怎么办？ read as cp1252
    assert repair.repair_mojibake(damaged).changed and weighed
