from django.conf import settings
from django.urls import path, re_path
from django.views.static import serve

from . import views

urlpatterns = [
    path("", views.product_list),
    path("product/<int:pk>", views.product),
    path("static/store.css", views.stylesheet),
    re_path(r"^images/(?P<path>[\w.-]+)$", serve, {"document_root": settings.IMAGES_DIR}),
]
