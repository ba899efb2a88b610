"""Unit tests of scripts/stable_digits.py (run by meson test stable_digits, or
/usr/bin/python3 -m unittest discover -s scripts -p 'test_stable_digits.py')."""
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fill_results_readme  # noqa: E402
import stable_digits as sd  # noqa: E402


class Agreement(unittest.TestCase):
    def test_route_to_chaos_values(self):
        # The old 8 -> 16 doubling at two tolerances: they share 0.01824 and
        # differ in the fourth significant digit's neighbour.
        self.assertEqual(sd.sig_agree(0.0182417, 0.0182448), 4)
        self.assertEqual(sd.sig_agree(0.01824171, 0.01824174), 6)

    def test_sign_and_magnitude(self):
        self.assertEqual(sd.sig_agree(-0.98, 0.98), 0)
        # Both round to -1 at one digit, and no further.
        self.assertEqual(sd.sig_agree(-1.39, -0.98), 1)
        # 0.0999 and 0.1001 print 0.100 to 3 digits, but not to 4.
        self.assertEqual(sd.sig_agree(0.0999, 0.1001), 3)

    def test_identical_and_nonfinite(self):
        self.assertEqual(sd.sig_agree(1.5, 1.5, 9), 9)
        self.assertEqual(sd.sig_agree(float("nan"), float("nan")), 0)
        self.assertEqual(sd.dec_agree(float("inf"), 1.0), -1)

    def test_decimals(self):
        self.assertEqual(sd.dec_agree(0.20031089994, 0.20031090054), 8)
        self.assertEqual(sd.dec_agree(0.20031089994, 0.20031091054), 7)
        self.assertEqual(sd.dec_agree(-0.0000004, 0.0000004), 6)  # -0.000000 == 0.000000
        self.assertEqual(sd.dec_agree(12.4, 13.4), -1)

    def test_rounding_straddles_a_half(self):
        # 2e-8 apart, yet 0.123456 and 0.123457 at 6 digits: only 5 are shared.
        self.assertEqual(sd.sig_agree(0.12345649, 0.12345651), 5)


class CheckerTest(unittest.TestCase):
    def test_prints_only_shared_digits(self):
        c = sd.Checker("t")
        self.assertEqual(c.sig("pd", 0.018241731, 0.018241712, 4, show=8), "0.0182417")
        self.assertEqual(c.dec("theta", 0.20031089994, 0.20031090054, 6, show=11), "0.20031090")
        self.assertEqual(c.same("stable", "yes", "yes"), "yes")
        err = io.StringIO()
        self.assertEqual(c.finish(err), 0)
        self.assertIn("all 3 numbers agree", err.getvalue())

    def test_tiny_values_in_exponent_form_and_bounds(self):
        c = sd.Checker("t")
        self.assertEqual(c.sig("residual", 3.14e-11, 3.13e-11, 2), "3.1e-11")
        self.assertEqual(c.bound("error", 3.6e-11, 4.8e-11), "5e-11")
        self.assertEqual(c.bound("error", 9.2e-11, 1e-12), "1e-10")
        self.assertEqual(c.bound("error", 0.012, 0.003), "0.02")
        self.assertEqual(c.finish(io.StringIO()), 0)

    def test_too_few_digits_fails_naming_the_number(self):
        c = sd.Checker("t")
        c.sig("PD 8->16", 0.0182417, 0.0182448, 5)
        c.sig("period-8 multiplier", -1.39, -0.98, 2)
        c.same("outcome at b=1.5", "stable", "unstable")
        c.sig("fine", 1.0, 1.0, 5)
        err = io.StringIO()
        self.assertEqual(c.finish(err), 1)
        text = err.getvalue()
        self.assertIn("PD 8->16", text)
        self.assertIn("period-8 multiplier", text)
        self.assertIn("outcome at b=1.5", text)
        self.assertNotIn("fine", text.replace("define", ""))
        self.assertIn("3 of 4 numbers differ", text)


class FillReadme(unittest.TestCase):
    def test_blocks_replaced_and_missing_kept(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "tables"))
            with open(os.path.join(d, "tables", "a.md"), "w") as f:
                f.write("| new |\n")
            text = ("x\n<!-- BEGIN tables/a.md -->\n| old |\n<!-- END tables/a.md -->\ny\n"
                    "<!-- BEGIN tables/b.md -->\nkept\n<!-- END tables/b.md -->\n")
            new, missing = fill_results_readme.fill(text, d)
        self.assertEqual(new, "x\n<!-- BEGIN tables/a.md -->\n| new |\n<!-- END tables/a.md -->\ny\n"
                              "<!-- BEGIN tables/b.md -->\nkept\n<!-- END tables/b.md -->\n")
        self.assertEqual(missing, ["tables/b.md"])

    def test_sections(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "tables"))
            with open(os.path.join(d, "tables", "s.md"), "w") as f:
                f.write("### one\n\n| 1 |\n\n### two\n| 2 |\n")
            text = ("<!-- BEGIN tables/s.md#two -->\n<!-- END tables/s.md#two -->\n"
                    "<!-- BEGIN tables/s.md#one -->\nold\n<!-- END tables/s.md#one -->\n"
                    "<!-- BEGIN tables/s.md#three -->\nkept\n<!-- END tables/s.md#three -->\n")
            new, missing = fill_results_readme.fill(text, d)
        self.assertEqual(new, "<!-- BEGIN tables/s.md#two -->\n| 2 |\n<!-- END tables/s.md#two -->\n"
                              "<!-- BEGIN tables/s.md#one -->\n| 1 |\n<!-- END tables/s.md#one -->\n"
                              "<!-- BEGIN tables/s.md#three -->\nkept\n<!-- END tables/s.md#three -->\n")
        self.assertEqual(missing, ["tables/s.md#three"])

    def test_a_models_page(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "m"))
            with open(os.path.join(d, "m", "README.md"), "w") as f:
                f.write("# m\n## The gait\n| 1 |\n### sub\n```\n# not a heading\n```\n"
                        "## Next\n| 2 |\n")
            text = ("<!-- BEGIN m/README.md#The gait -->\nold\n<!-- END m/README.md#The gait -->\n"
                    "<!-- BEGIN m/README.md#Next -->\n<!-- END m/README.md#Next -->\n"
                    "<!-- BEGIN ../m/README.md#Next -->\nkept\n<!-- END ../m/README.md#Next -->\n")
            new, missing = fill_results_readme.fill(text, os.path.join(d, "m"))
            self.assertEqual(missing, ["m/README.md#The gait", "m/README.md#Next",
                                       "../m/README.md#Next"])
            new, missing = fill_results_readme.fill(text, d)
        self.assertEqual(new, "<!-- BEGIN m/README.md#The gait -->\n| 1 |\n### sub\n```\n"
                              "# not a heading\n```\n<!-- END m/README.md#The gait -->\n"
                              "<!-- BEGIN m/README.md#Next -->\n| 2 |\n<!-- END m/README.md#Next -->\n"
                              "<!-- BEGIN ../m/README.md#Next -->\nkept\n<!-- END ../m/README.md#Next -->\n")
        self.assertEqual(missing, ["../m/README.md#Next"])


if __name__ == "__main__":
    unittest.main()
