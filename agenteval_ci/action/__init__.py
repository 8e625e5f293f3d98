"""The GitHub Action, a front door: the runner's environment read once into typed settings
(settings.py, event.py), one mode run (main.py), the verdict published (publish.py) or a
baseline accepted (accept.py). agent_env.py builds the image's agent environment; it runs at
image build time with only this package's light modules, so nothing is imported here.
"""
