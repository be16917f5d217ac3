"""Scripts run as modules from the checkout: `python -m scripts.reliability`."""
