"""How rates are written: a slow measure's rate reads as what it is, not as 0."""

from pipeline.text import rate_text


def test_rates_under_ten_keep_two_figures_and_larger_ones_are_whole():
    assert rate_text(243_104.6) == "243,105"
    assert rate_text(12.4) == "12"
    assert rate_text(5.46) == "5.5"
    assert rate_text(0.1123) == "0.11"
    assert rate_text(None) == "-"
