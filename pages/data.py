import streamlit as st

st.title("todo")
