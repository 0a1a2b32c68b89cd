# The two commands of the README: `make demo` and `make test`. Both set up what they need first.
VENV ?= .venv
HDLRL := $(VENV)/bin/hdlrl
PDK_DIR ?= $(abspath ../shared/pdk)

.PHONY: setup demo test bench clean

setup:
	@bash scripts/setup.sh

demo: setup
	$(HDLRL) tools
	$(HDLRL) eval designs/alu8 --pdk generic
	$(HDLRL) optimize designs/tick_div10 --pdk generic --budget 8 --seed 0 --out runs/demo-tick_div10

test: setup
	HDLRL_PDK_DIR=$${HDLRL_PDK_DIR:-$(PDK_DIR)} $(VENV)/bin/python -m pytest -q -p no:cacheprovider --durations=15 -n 2 --dist loadfile tests

bench: setup
	HDLRL_PDK_DIR=$${HDLRL_PDK_DIR:-$(PDK_DIR)} $(HDLRL) bench eval

clean:
	rm -rf $(VENV) build *.egg-info
