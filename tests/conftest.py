"""pytest glue: prints the accuracy table that tests/test_accuracy.py measured."""
import sweeps


def pytest_terminal_summary(terminalreporter):
    if not sweeps.REPORT:
        return
    terminalreporter.write_sep("-", "actgrad: measured max ulp vs contract target (exhaustive f16/bf16 sweeps)")
    for line in sweeps.report_lines():
        terminalreporter.write_line(line)
