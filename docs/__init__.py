"""Documentation shipped in the wheel, so that `gpudoctor explain CODE` works wherever gpudoctor is installed."""
