from django.apps import AppConfig


class SvcIslandsConfig(AppConfig):
    """The app that brings the `svc_islands` template tag library."""

    name = "svc_islands.django"
    label = "svc_islands"
    verbose_name = "svc islands"
